import { useQueryClient } from '@tanstack/react-query';
import { updateProject, type Project } from '../api/hosting';
import { useSignedIn } from '../lib/session-context';
import { Panel } from '../ui/panel';
import { ProjectForm } from './project-form';
import { projectToForm } from './project-form-model';
import { hostingKeys } from './widgets';

/** Settings: the edit form; only what changed is sent. */
export function ProjectSettingsTab({ project }: { readonly project: Project }) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  return (
    <Panel title="Settings">
      <ProjectForm
        mode="edit"
        initial={projectToForm(project)}
        submitLabel="Save changes"
        onSubmit={(payload) => updateProject(token, project.id, payload)}
        onDone={() => {
          void queryClient.invalidateQueries({ queryKey: hostingKeys.project(project.id) });
          void queryClient.invalidateQueries({ queryKey: hostingKeys.projects });
        }}
      />
    </Panel>
  );
}
