import { EmptyState } from '../ui/panel';

/** Work in progress on this branch: replaced by the screen itself. */
export function BatchScreen() {
  return <EmptyState title="BatchScreen" />;
}
