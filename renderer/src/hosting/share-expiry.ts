// Expiry of a project's share with a group, as this server's access rules read it
// (server/hosting/projects/project-access.ts): a share gives access through its `expires_at` day,
// and nothing after it.

/** A local calendar day as YYYY-MM-DD (what a date input and GitLab's `expires_at` hold). */
export function dayOf(date: Date): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

/** Whether a share is in force on `today`: never expires, active until its date, or expired. */
export function shareState(expiresAt: string | null | undefined, today: string): 'never' | 'active' | 'expired' {
  if (!expiresAt) return 'never';
  return expiresAt.slice(0, 10) < today ? 'expired' : 'active';
}

/** Why an expiry typed into the share form cannot be used, or null when it can (empty: never). */
export function expiryProblem(input: string, today: string): string | null {
  if (input === '') return null;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(input) || Number.isNaN(Date.parse(`${input}T00:00:00Z`))) return 'Enter a date, or leave it empty.';
  if (input < today) return 'Choose today or a later day: a share that has expired gives no access.';
  return null;
}
