import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import {
  createGroupBadge,
  deleteGroupBadge,
  listGroupBadges,
  listGroups,
  renderGroupBadge,
  updateGroupBadge,
  type BadgeInput,
  type Group,
  type GroupBadge,
} from '../api/hosting';
import { useSignedIn } from '../lib/session-context';
import { EmptyState, Panel } from '../ui/panel';
import { Busy } from '../ui/status';
import { ConfirmDialog, useConfirmedMutation } from './confirm-dialog';
import { fieldErrorsOf } from './field-errors';
import { Field, focusFirstInvalid, hostingKeys, InlineProblem, SubmitButton } from './widgets';

const placeholders = [
  '%{project_path}',
  '%{project_id}',
  '%{default_branch}',
  '%{commit_sha}',
  '%{project_name}',
  '%{group_name}',
  '%{gitlab_server}',
];
const isHttp = (url: string) => /^https?:\/\/\S+$/i.test(url.trim());

/** A badge as it shows in a README: the rendered image, linked to the rendered link. */
function BadgeImage({ name, link, image }: { readonly name: string | null; readonly link: string; readonly image: string }) {
  const [broken, setBroken] = useState(false);
  return (
    <a href={link} target="_blank" rel="noreferrer noopener" className="prj-badge-link">
      {broken ? (
        <span className="prj-badge-broken">Image did not load</span>
      ) : (
        <img src={image} alt={name || 'Badge'} className="prj-badge-img" onError={() => setBroken(true)} />
      )}
    </a>
  );
}

function BadgePreview({
  group,
  name,
  link,
  image,
}: {
  readonly group: Group;
  readonly name: string;
  readonly link: string;
  readonly image: string;
}) {
  const { token } = useSignedIn();
  const [asked, setAsked] = useState({ link, image });
  // Ask the server to render once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => setAsked({ link, image }), 350);
    return () => clearTimeout(timer);
  }, [link, image]);
  const ready = isHttp(asked.link) && isHttp(asked.image);
  const render = useQuery({
    queryKey: [...hostingKeys.badges(group.id), 'render', asked.link, asked.image],
    queryFn: ({ signal }) => renderGroupBadge(token, group.id, { link_url: asked.link.trim(), image_url: asked.image.trim() }, signal),
    enabled: ready,
  });
  return (
    <section className="prj-preview" aria-label="Badge preview" aria-live="polite">
      <p className="prj-subtitle">Preview</p>
      {!ready ? <p className="prj-help">Enter both URLs (http or https) to see the badge as the group's projects will show it.</p> : null}
      {ready && render.isPending ? <Busy>Rendering…</Busy> : null}
      {ready && render.isError ? <InlineProblem>{render.error.message}</InlineProblem> : null}
      {ready && render.data ? (
        <>
          <BadgeImage
            key={render.data.rendered_image_url}
            name={render.data.name ?? (name.trim() || null)}
            link={render.data.rendered_link_url}
            image={render.data.rendered_image_url}
          />
          <dl className="prj-rendered">
            <dt>Rendered link</dt>
            <dd className="mono">{render.data.rendered_link_url}</dd>
            <dt>Rendered image</dt>
            <dd className="mono">{render.data.rendered_image_url}</dd>
          </dl>
        </>
      ) : null}
    </section>
  );
}

function BadgeForm({
  group,
  editing,
  onDone,
}: {
  readonly group: Group;
  readonly editing: GroupBadge | null;
  readonly onDone: () => void;
}) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<BadgeInput>(() => ({
    name: editing?.name ?? '',
    link_url: editing?.link_url ?? '',
    image_url: editing?.image_url ?? '',
  }));
  const [checked, setChecked] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: (input: BadgeInput) =>
      editing ? updateGroupBadge(token, group.id, editing.id, input) : createGroupBadge(token, group.id, input),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: hostingKeys.badges(group.id) });
      if (!editing) setForm({ name: '', link_url: '', image_url: '' });
      onDone();
    },
  });
  const errors = fieldErrorsOf(save.error, ['name', 'link_url', 'image_url']);
  const errorOf = (field: string) => checked[field] ?? errors.fields[field] ?? null;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (save.isPending) return;
    const found: Record<string, string> = {};
    if (!isHttp(form.link_url)) found.link_url = 'Enter an http:// or https:// link.';
    if (!isHttp(form.image_url)) found.image_url = 'Enter an http:// or https:// image URL.';
    setChecked(found);
    if (Object.keys(found).length > 0) {
      focusFirstInvalid(event.currentTarget, true);
      return;
    }
    save.mutate({ name: form.name?.trim() || undefined, link_url: form.link_url.trim(), image_url: form.image_url.trim() });
  };
  return (
    <form className="prj-form" onSubmit={submit} noValidate>
      <Field label="Name (optional)" error={errorOf('name')}>
        {(props) => (
          <input
            {...props}
            className="input"
            value={form.name ?? ''}
            onChange={(e) => setForm({ ...form, name: e.currentTarget.value })}
            autoComplete="off"
          />
        )}
      </Field>
      <Field label="Link URL" error={errorOf('link_url')} help="Where the badge leads.">
        {(props) => (
          <input
            {...props}
            className="input mono"
            type="url"
            value={form.link_url}
            placeholder="https://ci.example.com/%{project_path}"
            onChange={(e) => setForm({ ...form, link_url: e.currentTarget.value })}
            autoComplete="off"
            spellCheck={false}
          />
        )}
      </Field>
      <Field label="Image URL" error={errorOf('image_url')} help="The badge picture (SVG or PNG).">
        {(props) => (
          <input
            {...props}
            className="input mono"
            type="url"
            value={form.image_url}
            placeholder="https://ci.example.com/%{project_path}/badge.svg"
            onChange={(e) => setForm({ ...form, image_url: e.currentTarget.value })}
            autoComplete="off"
            spellCheck={false}
          />
        )}
      </Field>
      <p className="prj-help">
        Placeholders, filled from the group's first project:{' '}
        <span className="prj-codes">
          {placeholders.map((p) => (
            <code key={p}>{p}</code>
          ))}
        </span>
      </p>
      <BadgePreview group={group} name={form.name ?? ''} link={form.link_url} image={form.image_url} />
      <InlineProblem>{errors.general}</InlineProblem>
      <div className="actions">
        <SubmitButton pending={save.isPending} busyLabel="Saving…">
          {editing ? 'Save badge' : 'Add badge'}
        </SubmitButton>
        {editing ? (
          <button type="button" className="button button-secondary" onClick={onDone}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}

function GroupBadges({ group }: { readonly group: Group }) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const badges = useQuery({ queryKey: hostingKeys.badges(group.id), queryFn: ({ signal }) => listGroupBadges(token, group.id, signal) });
  const [editing, setEditing] = useState<GroupBadge | null>(null);
  const remove = useConfirmedMutation({
    mutationFn: (badge: GroupBadge) => deleteGroupBadge(token, group.id, badge.id),
    onSuccess: async (_data, badge) => {
      if (editing?.id === badge.id) setEditing(null);
      await queryClient.invalidateQueries({ queryKey: hostingKeys.badges(group.id) });
    },
  });
  return (
    <div className="prj-two">
      <Panel title={`Badges of ${group.full_path}`}>
        {badges.isPending ? <Busy>Loading badges…</Busy> : null}
        {badges.isError ? <InlineProblem>{badges.error.message}</InlineProblem> : null}
        {badges.data && badges.data.length === 0 ? (
          <EmptyState title="No badges yet.">
            <p>Add a badge to show a status picture (build, release, licence) on every project of the group.</p>
          </EmptyState>
        ) : null}
        {badges.data && badges.data.length > 0 ? (
          <ul className="prj-badges" aria-label="Group badges">
            {badges.data.map((badge) => (
              <li key={badge.id} className="prj-badge">
                <BadgeImage name={badge.name} link={badge.rendered_link_url} image={badge.rendered_image_url} />
                <div className="prj-badge-text">
                  <p className="prj-subtitle">{badge.name || `Badge #${badge.id}`}</p>
                  <p className="mono small muted prj-break">{badge.link_url}</p>
                  <p className="mono small muted prj-break">{badge.image_url}</p>
                </div>
                <div className="prj-row">
                  <button type="button" className="button button-secondary prj-small-button" onClick={() => setEditing(badge)}>
                    Edit<span className="visually-hidden"> {badge.name || `badge ${badge.id}`}</span>
                  </button>
                  <button type="button" className="button button-ghost prj-small-button" onClick={() => remove.ask(badge)}>
                    Delete<span className="visually-hidden"> {badge.name || `badge ${badge.id}`}</span>
                  </button>
                </div>
              </li>
            ))}
          </ul>
        ) : null}
      </Panel>
      <Panel title={editing ? `Edit badge ${editing.name || `#${editing.id}`}` : 'Add a badge'}>
        <BadgeForm key={`${group.id}-${editing?.id ?? 'new'}`} group={group} editing={editing} onDone={() => setEditing(null)} />
      </Panel>
      <ConfirmDialog {...remove.dialog} title="Delete this badge?" confirmLabel="Delete badge">
        <p>
          The badge <strong>{remove.target?.name || `#${remove.target?.id}`}</strong> disappears from every project of {group.full_path}.
        </p>
      </ConfirmDialog>
    </div>
  );
}

/** Group badges: pick a group, then list, add, edit and delete its badges with a rendered preview. */
export function BadgesPage() {
  const { token } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const groups = useQuery({ queryKey: hostingKeys.groups, queryFn: ({ signal }) => listGroups(token, {}, signal) });
  const selectId = useId();
  const chosen = groups.data?.find((g) => String(g.id) === params.get('group')) ?? groups.data?.[0] ?? null;
  return (
    <div className="stack">
      <Panel title="Choose a group">
        {groups.isPending ? <Busy>Loading groups…</Busy> : null}
        {groups.isError ? <InlineProblem>{groups.error.message}</InlineProblem> : null}
        {groups.data && groups.data.length === 0 ? (
          <EmptyState title="You are in no group yet.">
            <p>Badges belong to groups. Create a group (an admin can, through the API: POST /api/v4/groups), then come back here.</p>
          </EmptyState>
        ) : null}
        {groups.data && groups.data.length > 0 ? (
          <div className="prj-field prj-form-narrow">
            <label className="label" htmlFor={selectId}>
              Group
            </label>
            <select id={selectId} className="input" value={chosen?.id ?? ''} onChange={(e) => setParams({ group: e.currentTarget.value })}>
              {groups.data.map((g) => (
                <option key={g.id} value={g.id}>
                  {g.full_path}
                </option>
              ))}
            </select>
            <p className="prj-help">
              Badges show on every project of the group. <Link to="/projects">Back to the projects</Link>
            </p>
          </div>
        ) : null}
      </Panel>
      {chosen ? <GroupBadges key={chosen.id} group={chosen} /> : null}
    </div>
  );
}
