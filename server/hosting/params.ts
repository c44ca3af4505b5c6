import { AppError, type ValidationIssue } from '../http/errors.js';

/**
 * Request parameters as Grape sees them: query string, form and JSON body merged (body wins).
 * Readers coerce like Grape (booleans accept true/false, 1/0, t/f, yes/no in any case) and collect
 * GitLab-worded problems; `check()` throws them as one 400 `{"error": "a is missing, b is invalid"}`.
 */
export class Params {
  /**
   * `scope` names a nested hash (`actions[0]`): its problems read `actions[0][content] is invalid`, as
   * Grape words them, and land in the `issues` of the Params it was made from.
   */
  constructor(
    private readonly raw: Readonly<Record<string, unknown>>,
    private readonly scope?: string,
    private readonly issues: ValidationIssue[] = [],
  ) {}

  /** The params of a hash nested under `name` (Grape's `requires :actions, type: Array do … end`); one `check()` throws both. */
  nested(name: string, raw: Readonly<Record<string, unknown>>): Params {
    return new Params(raw, this.locOf(name), this.issues);
  }

  private locOf(name: string): string {
    return this.scope === undefined ? name : `${this.scope}[${name}]`;
  }

  /** True when the parameter was sent at all (null counts as sent). */
  has(name: string): boolean {
    return this.raw[name] !== undefined;
  }

  /** Record that these parameters are required; each missing or empty one is its own "x is missing", as in Grape. */
  require(...names: string[]): this {
    for (const n of names) {
      if (this.raw[n] === undefined || this.raw[n] === null || this.raw[n] === '')
        this.issues.push({ loc: [this.locOf(n)], msg: 'is missing', type: 'missing' });
    }
    return this;
  }

  /** At least one of these must be present (Grape's at_least_one_of). */
  requireOneOf(...names: string[]): this {
    if (!names.some((n) => this.raw[n] !== undefined && this.raw[n] !== null && this.raw[n] !== '')) {
      this.issues.push({
        loc: [names.map((n) => this.locOf(n)).join(', ')],
        msg: 'are missing, at least one parameter must be provided',
        type: 'missing',
      });
    }
    return this;
  }

  /** Record `name` as invalid: a value no reader takes (a list that is not an array, an item that is not a hash). */
  invalid(name: string): this {
    this.issues.push({ loc: [this.locOf(name)], msg: 'is invalid', type: 'invalid' });
    return this;
  }

  /** A String as Grape coerces one (Coercible::String): numbers and booleans become their text; arrays and hashes are invalid. */
  string(name: string): string | undefined {
    const v = this.raw[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    this.issues.push({ loc: [this.locOf(name)], msg: 'is invalid', type: 'invalid', input: v });
    return undefined;
  }

  int(name: string): number | undefined {
    const v = this.raw[name];
    if (v === undefined || v === null || v === '') return undefined;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n)) {
      this.issues.push({ loc: [this.locOf(name)], msg: 'is invalid', type: 'invalid', input: v });
      return undefined;
    }
    return n;
  }

  bool(name: string): boolean | undefined {
    const v = this.raw[name];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v === 'boolean') return v;
    const s = String(v).trim().toLowerCase();
    if (['true', '1', 't', 'yes', 'y', 'on'].includes(s)) return true;
    if (['false', '0', 'f', 'no', 'n', 'off'].includes(s)) return false;
    this.issues.push({ loc: [this.locOf(name)], msg: 'is invalid', type: 'invalid', input: v });
    return undefined;
  }

  /** A value restricted to a set; anything else "does not have a valid value". */
  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    if (!(values as readonly string[]).includes(v)) {
      this.issues.push({ loc: [this.locOf(name)], msg: 'does not have a valid value', type: 'value', input: v });
      return undefined;
    }
    return v as T;
  }

  /** An array parameter: `a[]=x&a[]=y`, a JSON array, or a comma-separated string. */
  list(name: string): string[] | undefined {
    const v = this.raw[name] ?? this.raw[`${name}[]`];
    if (v === undefined || v === null) return undefined;
    if (Array.isArray(v)) return v.map(String);
    if (typeof v === 'string') return v === '' ? [] : v.split(',').map((s) => s.trim());
    this.issues.push({ loc: [this.locOf(name)], msg: 'is invalid', type: 'invalid', input: v });
    return undefined;
  }

  /**
   * Throw the collected problems, if any; else return `values`, each known to be present, so callers
   * need no `!`. Pass only reads of required parameters (path parameters, or those named in `require`):
   * one absent here is a bug in the route, thrown as such (a 500).
   */
  checked<const T extends readonly unknown[]>(...values: T): { readonly [K in keyof T]: Exclude<T[K], undefined> } {
    this.check();
    const absent = values.findIndex((v) => v === undefined);
    if (absent >= 0) throw new Error(`Params.checked: value ${absent} was read from a parameter that is not required`);
    return values as { readonly [K in keyof T]: Exclude<T[K], undefined> };
  }

  /** Throw the collected problems, if any. */
  check(): void {
    if (this.issues.length === 0) return;
    throw new AppError('invalid', this.issues.map((i) => `${i.loc.join('.')} ${i.msg}`).join(', '), { issues: [...this.issues] });
  }
}
