import { z } from 'zod';

/**
 * Schemas of the audio API: the routes validate with them and openapi.json is generated from them,
 * so the two cannot drift. Field names follow the spec (snake_case).
 */

export const jobStatusSchema = z
  .object({
    job_id: z.string(),
    type: z.string(),
    status: z.enum(['pending', 'running', 'done', 'error']),
    progress: z.number().min(0).max(1).describe('Fraction done, 0..1'),
    result: z.record(z.string(), z.unknown()).nullable().optional(),
    result_ref: z.string().nullable().optional(),
    error: z.string().nullable().optional(),
    created: z.number().describe('Unix epoch seconds (fractional)'),
    started: z.number().nullable().optional(),
    finished: z.number().nullable().optional(),
  })
  .meta({ id: 'JobStatus' });

const toolSchema = z.object({ found: z.boolean(), path: z.string().nullable(), version: z.string().nullable() });

export const healthSchema = z
  .object({
    status: z.literal('ok'),
    service: z.literal('cratehouse-audio'),
    version: z.string(),
    api_version: z.string(),
    ffmpeg: toolSchema,
    git: toolSchema,
  })
  .meta({ id: 'Health' });

export const usageSchema = z.object({
  requests: z.record(z.string(), z.number()).describe('Requests per route'),
  requests_total: z.number(),
  bytes_uploaded: z.number(),
  audio_seconds: z.number().describe('Seconds of audio analysed'),
});

export const meSchema = z
  .object({
    identity: z.object({ user_id: z.number(), username: z.string(), name: z.string(), admin: z.boolean(), token_name: z.string() }),
    tenant: z.object({ id: z.string(), webhook_secret: z.string().describe('HMAC-SHA256 secret for webhook signatures') }),
    usage: usageSchema,
  })
  .meta({ id: 'Me' });

export const validationErrorSchema = z
  .object({
    loc: z.array(z.union([z.string(), z.number()])),
    msg: z.string(),
    type: z.string(),
    input: z.unknown().optional(),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'ValidationError' });

export const httpValidationErrorSchema = z.object({ detail: z.array(validationErrorSchema).optional() }).meta({ id: 'HTTPValidationError' });

export const errorMessageSchema = z.object({ detail: z.string() }).meta({ id: 'ErrorMessage' });

export const jobIdPathSchema = z.object({ job_id: z.string() });

/** A query schema's parsed output. */
export type QueryOf<S extends z.ZodType> = z.output<S>;
