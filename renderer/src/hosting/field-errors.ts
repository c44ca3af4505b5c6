// GitLab reports problems with a request in two shapes; the forms show each one under its field:
//   validation:  {"message": {"path": ["has already been taken"], "name": ["can't be blank"]}}
//   parameters:  {"error": "name is missing, merge_method does not have a valid value"}
import { ApiError } from '../api/http';
import { asSentence } from '../api/error-message';

/** Problems by field name, and the sentence for whatever belongs to no field of the form. */
export interface FieldErrors {
  readonly fields: Readonly<Record<string, string>>;
  readonly general: string | null;
}

/** No problems. */
export const noFieldErrors: FieldErrors = { fields: {}, general: null };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Split an error into per-field sentences for the fields a form has (GitLab names the field first:
 * "has already been taken" under the path field reads as "Has already been taken."); anything else
 * stays one general sentence. `aliases` maps an API name to the form's field (topics → tag_list).
 */
export function fieldErrorsOf(error: unknown, formFields: readonly string[], aliases: Readonly<Record<string, string>> = {}): FieldErrors {
  if (!error) return noFieldErrors;
  if (!(error instanceof ApiError)) return { fields: {}, general: error instanceof Error ? error.message : String(error) };
  const known = new Set(formFields);
  const fieldOf = (name: string) => {
    const field = aliases[name] ?? name;
    return known.has(field) ? field : null;
  };
  const fields: Record<string, string> = {};
  const rest: string[] = [];
  const add = (field: string, text: string) => {
    fields[field] = fields[field] ? `${fields[field]} ${asSentence(text)}` : asSentence(text);
  };
  const body = error.body;
  if (isRecord(body) && isRecord(body.message)) {
    for (const [name, value] of Object.entries(body.message)) {
      const text = Array.isArray(value) ? value.map(String).join(', ') : String(value);
      const field = fieldOf(name);
      if (field) add(field, text);
      else rest.push(`${name.replace(/_/g, ' ')} ${text}`);
    }
  } else if (isRecord(body) && typeof body.error === 'string') {
    // Grape joins the problems with ", "; each starts with the parameter's name.
    const names = [...new Set([...formFields, ...Object.keys(aliases)])].sort((a, b) => b.length - a.length);
    for (const part of body.error.split(/,\s+(?=[a-z_[\]]+\s)/)) {
      const name = names.find((n) => part.startsWith(`${n} `));
      const field = name ? fieldOf(name) : null;
      if (name && field) add(field, part.slice(name.length + 1));
      else rest.push(part);
    }
  } else {
    return { fields: {}, general: error.message };
  }
  return { fields, general: rest.length > 0 ? asSentence(rest.join('; ')) : Object.keys(fields).length > 0 ? null : error.message };
}
