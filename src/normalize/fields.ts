// Field lookup across the shapes structured loggers write: top level first,
// then one nested wrapper object; dotted names both flat (OpenTelemetry) and nested.

export type Json = Record<string, unknown>;

export const WRAPPERS = ['mcp', 'data', 'fields', 'attributes'] as const;

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function lookupIn(obj: Json, name: string): unknown {
  if (name in obj) return obj[name];
  if (!name.includes('.')) return undefined;
  let cur: unknown = obj;
  for (const part of name.split('.')) {
    if (!isObject(cur) || !(part in cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

export type Accept = (v: unknown) => boolean;

export const isString: Accept = (v) => typeof v === 'string';
export const isNumber: Accept = (v) => typeof v === 'number' && Number.isFinite(v);
export const isStringOrNumber: Accept = (v) => isString(v) || isNumber(v);
export const isBool: Accept = (v) => typeof v === 'boolean';
export const isAny: Accept = (v) => v !== undefined;

/**
 * The value of the first name (canonical, then aliases) whose value has the
 * expected type; an alias of the wrong type (ECS `event` as an object) is skipped.
 */
export function pick(obj: Json, names: readonly string[], accept: Accept): unknown {
  for (const scope of scopes(obj)) {
    for (const n of names) {
      const v = lookupIn(scope, n);
      if (v !== undefined && accept(v)) return v;
    }
  }
  return undefined;
}

/** Whether any scope holds `name` at all (used to tell "absent" from "null"). */
export function has(obj: Json, names: readonly string[]): boolean {
  return scopes(obj).some((s) => names.some((n) => lookupIn(s, n) !== undefined));
}

// One normalization asks ~40 fields of the same object in a row: remember its scopes.
let lastObj: Json | undefined;
let lastScopes: Json[] = [];

function scopes(obj: Json): Json[] {
  if (obj === lastObj) return lastScopes;
  const out = [obj];
  for (const w of WRAPPERS) {
    const inner = obj[w];
    if (isObject(inner)) {
      out.push(inner);
      break; // one nested object, the first found
    }
  }
  lastObj = obj;
  lastScopes = out;
  return out;
}

/** Event and request ids are opaque: 1204 and "1204" are the same id. */
export function idString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}
