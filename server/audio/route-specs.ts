import type { z } from 'zod';
import { errorMessageSchema, healthSchema, httpValidationErrorSchema, jobIdPathSchema, jobStatusSchema, meSchema } from './schemas.js';

/** One route of the audio API: enough to mount it, validate it and describe it in openapi.json. */
export interface AudioRouteSpec {
  readonly id: string;
  readonly method: 'get' | 'post' | 'delete';
  /** OpenAPI-style path relative to /audio/v1 (`/jobs/{job_id}`). */
  readonly path: string;
  readonly summary: string;
  /** False only for /healthz and /openapi.json. */
  readonly auth: boolean;
  readonly query?: z.ZodObject;
  readonly params?: z.ZodObject;
  readonly multipartFile?: boolean;
  readonly jsonBody?: z.ZodType;
  readonly responses: Readonly<Record<number, { readonly description: string; readonly schema?: z.ZodType; readonly contentType?: string }>>;
}

const notFoundResponse = { description: 'Unknown, or owned by another tenant', schema: errorMessageSchema };
const unauthorized = { description: 'Missing or invalid bearer token', schema: errorMessageSchema };

/** Every route of the audio API. Later capabilities add theirs here; a test checks nothing is mounted unlisted. */
export const audioRouteSpecs = {
  healthz: {
    id: 'healthz',
    method: 'get',
    path: '/healthz',
    summary: 'Service health, version and the external tools found',
    auth: false,
    responses: { 200: { description: 'Healthy', schema: healthSchema } },
  },
  openapi: {
    id: 'openapi',
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    auth: false,
    responses: { 200: { description: 'OpenAPI 3.1 description of the audio API' } },
  },
  me: {
    id: 'me',
    method: 'get',
    path: '/me',
    summary: "The caller's gateway-resolved identity, tenant and usage",
    auth: true,
    responses: { 200: { description: 'Identity', schema: meSchema }, 401: unauthorized },
  },
  getJob: {
    id: 'getJob',
    method: 'get',
    path: '/jobs/{job_id}',
    summary: 'Status of a job of the caller’s tenant',
    auth: true,
    params: jobIdPathSchema,
    responses: { 200: { description: 'The job', schema: jobStatusSchema }, 401: unauthorized, 404: notFoundResponse },
  },
  cancelJob: {
    id: 'cancelJob',
    method: 'delete',
    path: '/jobs/{job_id}',
    summary: 'Cancel a pending or running job (idempotent; a finished job is unchanged)',
    auth: true,
    params: jobIdPathSchema,
    responses: { 200: { description: 'The job after the request', schema: jobStatusSchema }, 401: unauthorized, 404: notFoundResponse },
  },
} as const satisfies Record<string, AudioRouteSpec>;

/** The 422 response every validated route may give. */
export const validationResponse = { description: 'Validation Error', schema: httpValidationErrorSchema };
