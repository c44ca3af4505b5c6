import { z } from 'zod';
import { sha256QuerySchema } from './library-schemas.js';
import { validationResponse, type AudioRouteSpec } from './route-specs.js';

type JsonSchema = Record<string, unknown>;

/** Build the OpenAPI 3.1 document of the audio API from the route specs (the schemas the routes validate with). */
export function buildOpenApi(specs: readonly AudioRouteSpec[], serverVersion: string): JsonSchema {
  const components: Record<string, JsonSchema> = {};
  const ref = (schema: z.ZodType): JsonSchema => {
    const json = toJson(schema);
    const id = z.globalRegistry.get(schema)?.id;
    if (!id) return json;
    components[id] = json;
    return { $ref: `#/components/schemas/${id}` };
  };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of specs) {
    const parameters = [
      ...objectParams(spec.params, 'path'),
      ...objectParams(spec.query, 'query'),
      // Every analysis route also analyses audio the server holds, by hash, with an empty body.
      ...(spec.engine ? objectParams(sha256QuerySchema, 'query') : []),
      ...(spec.multipartFile
        ? [
            {
              name: 'X-Content-SHA256',
              in: 'header',
              required: false,
              schema: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
              description:
                'sha256 of the file. With `Expect: 100-continue`, a repeat of content this tenant uploaded before is answered from the cache without sending the body; otherwise the upload must match it (422).',
            },
          ]
        : []),
    ];
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      responses[status] = {
        description: r.description,
        ...(r.schema ? { content: { [r.contentType ?? 'application/json']: { schema: ref(r.schema) } } } : {}),
      };
    }
    if (parameters.length > 0 || spec.multipartFile || spec.jsonBody) {
      responses['422'] = {
        description: validationResponse.description,
        content: { 'application/json': { schema: ref(validationResponse.schema) } },
      };
    }
    const requestBody = spec.multipartFile
      ? {
          // An analysis asked by ?sha256= sends no body.
          required: !spec.engine,
          ...(spec.engine ? { description: 'The audio file; omit it (empty body) when asking by ?sha256=' } : {}),
          content: {
            'multipart/form-data': {
              schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } },
            },
          },
        }
      : spec.jsonBody
        ? { required: true, content: { 'application/json': { schema: ref(spec.jsonBody) } } }
        : undefined;
    (paths[spec.path] ??= {})[spec.method] = {
      operationId: spec.id,
      summary: spec.summary,
      ...(spec.auth ? {} : { security: [] }),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Cratehouse audio analysis service', version: '0.1.0', 'x-server-version': serverVersion },
    servers: [{ url: '/audio/v1' }],
    security: [{ bearer: [] }],
    paths,
    components: { schemas: components, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  };
}

function toJson(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

function objectParams(schema: z.ZodObject | undefined, where: 'path' | 'query'): unknown[] {
  if (!schema) return [];
  const json = toJson(schema);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (required.has(name) && !('default' in s)),
    schema: s,
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
  }));
}
