import type { z } from 'zod';
import type { healthSchema, jobStatusSchema, meSchema, validationErrorSchema } from './schemas.js';

/** Response bodies of the audio API, for clients (the renderer imports these as types only). */
export type JobStatus = z.infer<typeof jobStatusSchema>;
export type Health = z.infer<typeof healthSchema>;
export type Me = z.infer<typeof meSchema>;
export type ValidationError = z.infer<typeof validationErrorSchema>;
export interface HTTPValidationError {
  readonly detail: readonly ValidationError[];
}
