import type { z } from 'zod';
import type { healthSchema, jobStatusSchema, meSchema, sourceDescriptorSchema, sourceRequestSchema, validationErrorSchema } from './schemas.js';

/** Response bodies of the audio API, for clients (the renderer imports these as types only). */
export type JobStatus = z.infer<typeof jobStatusSchema>;
export type Health = z.infer<typeof healthSchema>;
export type Me = z.infer<typeof meSchema>;
export type ValidationError = z.infer<typeof validationErrorSchema>;
/** Body of POST /sources (priority and webhook_url optional). */
export type SourceRequest = z.input<typeof sourceRequestSchema>;
/** JobStatus.result of a finished source job. */
export type SourceDescriptor = z.infer<typeof sourceDescriptorSchema>;
export interface HTTPValidationError {
  readonly detail: readonly ValidationError[];
}
