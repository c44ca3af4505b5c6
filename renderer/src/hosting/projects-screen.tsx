import { EmptyState } from '../ui/panel';

/** Work in progress on this branch: replaced by the screen itself. */
export function ProjectsScreen() {
  return <EmptyState title="ProjectsScreen" />;
}
