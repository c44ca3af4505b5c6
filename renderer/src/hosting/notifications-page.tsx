import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { getGlobalNotifications, setGlobalNotifications, type NotificationLevelName } from '../api/hosting';
import { useSignedIn } from '../lib/session-context';
import { Fact } from '../ui/fact';
import { Panel } from '../ui/panel';
import { Busy } from '../ui/status';
import { NotificationLevelSelect } from './notification-level';
import { hostingKeys, InlineProblem } from './widgets';

/** Notifications: the global level (each project's own level is on its overview). */
export function NotificationsPage() {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const setting = useQuery({ queryKey: hostingKeys.globalNotifications, queryFn: ({ signal }) => getGlobalNotifications(token, signal) });
  const save = useMutation({
    mutationFn: (level: NotificationLevelName) => setGlobalNotifications(token, level),
    onSuccess: (data) => queryClient.setQueryData(hostingKeys.globalNotifications, data),
  });
  return (
    <Panel title="Global notifications">
      <p className="prj-lead">
        How much e-mail you get about projects. A project or group set to Global uses this level; set a project's own level on its overview.
      </p>
      {setting.isPending ? <Busy>Loading your notification settings…</Busy> : null}
      {setting.isError ? <InlineProblem>{setting.error.message}</InlineProblem> : null}
      {setting.data ? (
        <div className="prj-form-narrow">
          <NotificationLevelSelect
            label="Global notification level"
            scope="global"
            value={save.isPending && save.variables ? save.variables : setting.data.level}
            busy={save.isPending}
            onChange={(level) => save.mutate(level)}
          />
          <dl className="facts prj-gap">
            <Fact term="Sent to">
              <span className="mono truncate">{setting.data.notification_email}</span>
            </Fact>
          </dl>
          <InlineProblem>{save.error?.message}</InlineProblem>
          {save.isSuccess ? (
            <p className="prj-status prj-status-ok" role="status">
              Saved: {save.data.level}.
            </p>
          ) : null}
          <p className="prj-help prj-gap">
            <Link to="/projects">Choose a project</Link> to set its own level.
          </p>
        </div>
      ) : null}
    </Panel>
  );
}
