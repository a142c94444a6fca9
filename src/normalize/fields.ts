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

/**
 * The value of the first name (canonical, then aliases) whose value has the
 * expected type; an alias of the wrong type (ECS `event` as an object) is skipped.
 */
export function pick(obj: Json, names: readonly string[], accept: Accept): unknown {
  const sc = scopes(obj);
  if (sc === FLAT) {
    // No nested object: every name, dotted or not, can only be a top-level key.
    for (let i = 0; i < names.length; i++) {
      const v = obj[names[i]!];
      if (v !== undefined && accept(v)) return v;
    }
    return undefined;
  }
  for (const scope of sc) {
    for (const n of names) {
      const v = lookupIn(scope, n);
      if (v !== undefined && accept(v)) return v;
    }
  }
  return undefined;
}

/** Whether any scope holds `name` at all (used to tell "absent" from "null"). */
export function has(obj: Json, names: readonly string[]): boolean {
  const sc = scopes(obj);
  if (sc === FLAT) return names.some((n) => obj[n] !== undefined);
  return sc.some((s) => names.some((n) => lookupIn(s, n) !== undefined));
}

// One normalization asks ~40 fields of the same object in a row: remember its scopes.
let lastObj: Json | undefined;
let lastScopes: Json[] = [];

/**
 * Most log lines hold no nested object: then there is no wrapper scope and no
 * dotted path to follow, and a lookup is one property read. This marker says so.
 */
const FLAT: Json[] = [];

function scopes(obj: Json): Json[] {
  if (obj === lastObj) return lastScopes;
  lastObj = obj;
  lastScopes = hasNestedObject(obj) ? nestedScopes(obj) : FLAT;
  return lastScopes;
}

function hasNestedObject(obj: Json): boolean {
  for (const k in obj) if (isObject(obj[k])) return true;
  return false;
}

function nestedScopes(obj: Json): Json[] {
  const out = [obj];
  for (const w of WRAPPERS) {
    const inner = obj[w];
    if (isObject(inner)) {
      out.push(inner);
      break; // one nested object, the first found
    }
  }
  return out;
}

/** Event and request ids are opaque: 1204 and "1204" are the same id. */
export function idString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}
