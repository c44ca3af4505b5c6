import type { z } from 'zod';
import { invalidParams, type ValidationIssue } from '../../http/errors.js';

/** Validate one part of a request (`query`, `path`, `body`) and return the parsed value, or throw 422 issues. */
export function validatePart<S extends z.ZodType>(schema: S, part: 'query' | 'path' | 'body', value: unknown): z.output<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  throw invalidParams(parsed.error.issues.map((issue) => toPydanticIssue(issue, part, value)));
}

/** Translate a zod issue into FastAPI/pydantic's vocabulary, which the spec's HTTPValidationError uses. */
export function toPydanticIssue(issue: z.core.$ZodIssue, part: string, root: unknown): ValidationIssue {
  const loc = [part, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
  const input = pick(root, issue.path);
  const base = { loc, input };
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return { loc, msg: 'Field required', type: 'missing' };
      if (issue.expected === 'int')
        return { ...base, msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float' };
      if (issue.expected === 'number')
        return { ...base, msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' };
      if (issue.expected === 'boolean')
        return { ...base, msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing' };
      if (issue.expected === 'string') return { ...base, msg: 'Input should be a valid string', type: 'string_type' };
      return { ...base, msg: `Input should be a valid ${issue.expected}`, type: `${issue.expected}_type` };
    case 'too_big':
      return issue.inclusive === false
        ? { ...base, msg: `Input should be less than ${String(issue.maximum)}`, type: 'less_than', ctx: { lt: issue.maximum } }
        : {
            ...base,
            msg: `Input should be less than or equal to ${String(issue.maximum)}`,
            type: 'less_than_equal',
            ctx: { le: issue.maximum },
          };
    case 'too_small':
      return issue.inclusive === false
        ? { ...base, msg: `Input should be greater than ${String(issue.minimum)}`, type: 'greater_than', ctx: { gt: issue.minimum } }
        : {
            ...base,
            msg: `Input should be greater than or equal to ${String(issue.minimum)}`,
            type: 'greater_than_equal',
            ctx: { ge: issue.minimum },
          };
    case 'invalid_value':
      if (issue.values.length === 12 && issue.values.includes('enabled')) {
        return { ...base, msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing' };
      }
      return {
        ...base,
        msg: `Input should be ${issue.values.map((v) => `'${String(v)}'`).join(' or ')}`,
        type: 'enum',
        ctx: { expected: issue.values.map((v) => `'${String(v)}'`).join(' or ') },
      };
    case 'invalid_format':
      return { ...base, msg: `Input should be a valid ${issue.format}`, type: `${issue.format}_parsing` };
    default:
      return { ...base, msg: issue.message, type: 'value_error' };
  }
}

function pick(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
