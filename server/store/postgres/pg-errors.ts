import { AppError } from '../../http/errors.js';

/** What a unique violation on each constraint means, as the error the repositories throw for the same rule. */
const uniqueViolations: Readonly<Record<string, () => AppError>> = {
  projects_path_key: () => new AppError('invalid', 'project is invalid', { fields: { path: ['has already been taken'] } }),
  projects_name_key: () => new AppError('invalid', 'project is invalid', { fields: { name: ['has already been taken'] } }),
  namespaces_path_key: () => new AppError('invalid', 'group is invalid', { fields: { path: ['has already been taken'] } }),
  users_username_key: () => new AppError('conflict', 'Username has already been taken'),
  users_email_key: () => new AppError('conflict', 'Email has already been taken'),
  tokens_digest_key: () => new AppError('conflict', 'Token has already been taken'),
  group_members_pkey: () => new AppError('conflict', 'Member already exists'),
};

/**
 * The AppError a failed write maps to when PostgreSQL refused it for a rule the code also checks
 * (another node won a race): a unique violation on a known constraint. Undefined otherwise.
 */
export function constraintError(error: unknown): AppError | undefined {
  const e = error as { code?: unknown; constraint?: unknown };
  if (e.code !== '23505' || typeof e.constraint !== 'string') return undefined;
  return uniqueViolations[e.constraint]?.();
}
