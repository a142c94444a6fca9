import { readFileSync } from 'node:fs';
import { RECORD_KINDS } from '../../model/record.js';
import { isObject, type Json } from '../fields.js';
import type { InputFormat } from './types.js';

// A user-defined input format (`--mapping FILE`): which lines it recognizes
// and which of their fields fill which spec field. See README.md, "Mapping files".

export class MappingError extends Error {}

/** Where a spec field's value comes from: a path in the line, with an optional scale, or a constant. */
type Source = { from: string; scale?: number; default?: Scalar } | { value: Scalar };
type Scalar = string | number | boolean;

/** Spec fields a mapping may fill (log-format.md); `req_headers.NAME` and `resp_headers.NAME` fill one header. */
const TARGETS: readonly string[] = [
  'ts', 'kind', 'session', 'incarnation', 'stream', 'sequence', 'seq', 'conn', 'principal', 'node', 'req',
  'via', 'reason', 'aspect', 'log_evicted', 'event_id', 'rpc_kind', 'rpc_id', 'rpc_method', 'method', 'attached',
  'of_stream', 'oldest_retained', 'last_event_id', 'new_stream', 'decision', 'status', 'replayed', 'reemitted',
  'cancelled', 'first_replayed', 'replayed_ids', 'new_session', 'reset_signalled', 'request_id', 'new_request_id',
  'tool', 'args_hash', 'executed', 'path', 'req_headers', 'resp_headers', 'sse_event_ids', 'duration_ms', 'bytes',
  'protocol_version', 'retry_ms', 'priming',
];
const NUMERIC: ReadonlySet<string> = new Set(['seq', 'status', 'replayed', 'reemitted', 'cancelled', 'duration_ms', 'bytes', 'retry_ms']);
const BOOLEAN: ReadonlySet<string> = new Set(['log_evicted', 'attached', 'reset_signalled', 'executed', 'priming']);
const LISTS: ReadonlySet<string> = new Set(['replayed_ids', 'sse_event_ids']);
const HEADER_TARGET = /^(req_headers|resp_headers)\.([A-Za-z0-9!#$%&'*+^_`|~-]+)$/;

/** Names a mapping may not take: they would shadow the built-in formats. */
const RESERVED = ['resumescope', 'auto', 'nginx', 'envoy', 'otlp'];
const TOP_KEYS = ['name', 'detect', 'fields', 'kind', 'absent', 'description'];

interface Mapping {
  name: string;
  has: string[];
  equals: [string, Scalar][];
  fields: [string, Source][];
  kind?: string;
  absent: unknown[];
}

const fail = (key: string, msg: string): never => {
  throw new MappingError(`mapping "${key}": ${msg}`);
};
const show = (v: unknown) => JSON.stringify(v) ?? String(v);
const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';
const isPath = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

function unknownKeys(obj: Json, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) fail(where === '' ? k : `${where}.${k}`, `unknown key (allowed: ${allowed.join(', ')})`);
  }
}

function parseSource(target: string, v: unknown): Source {
  const key = `fields.${target}`;
  if (isPath(v)) return { from: v };
  if (!isObject(v)) return fail(key, `expected a source path (string), {"from": PATH} or {"value": CONSTANT}, got ${show(v)}`);
  if ('value' in v) {
    unknownKeys(v, ['value'], key);
    if (!isScalar(v.value)) fail(`${key}.value`, `expected a string, number or boolean, got ${show(v.value)}`);
    return { value: v.value as Scalar };
  }
  unknownKeys(v, ['from', 'scale', 'default'], key);
  if (!isPath(v.from)) return fail(`${key}.from`, `expected a source path (non-empty string), got ${show(v.from)}`);
  const src: Source = { from: v.from };
  if (v.scale !== undefined) {
    if (typeof v.scale !== 'number' || !Number.isFinite(v.scale) || v.scale === 0) fail(`${key}.scale`, `expected a non-zero number, got ${show(v.scale)}`);
    src.scale = v.scale as number;
  }
  if (v.default !== undefined) {
    if (!isScalar(v.default)) fail(`${key}.default`, `expected a string, number or boolean, got ${show(v.default)}`);
    src.default = v.default as Scalar;
  }
  return src;
}

function parseMapping(json: unknown): Mapping {
  let obj = json;
  if (typeof json === 'string') {
    try {
      obj = JSON.parse(json);
    } catch (err) {
      throw new MappingError(`mapping: not valid JSON (${(err as Error).message})`);
    }
  }
  if (!isObject(obj)) throw new MappingError(`mapping: expected a JSON object, got ${show(obj)}`);
  unknownKeys(obj, TOP_KEYS, '');

  const name = obj.name;
  if (typeof name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) {
    fail('name', `expected a name of letters, digits, "_", "." or "-", got ${show(name)}`);
  }
  if (RESERVED.includes((name as string).toLowerCase())) fail('name', `"${name}" is a built-in input format; choose another name`);

  if (!isObject(obj.detect)) return fail('detect', `expected {"has": [PATH, …]} and/or {"equals": {PATH: VALUE}}, got ${show(obj.detect)}`);
  unknownKeys(obj.detect, ['has', 'equals'], 'detect');
  const has = obj.detect.has ?? [];
  if (!Array.isArray(has) || !has.every(isPath)) fail('detect.has', `expected a list of source paths, got ${show(has)}`);
  const equalsObj = obj.detect.equals ?? {};
  if (!isObject(equalsObj)) return fail('detect.equals', `expected an object of PATH: VALUE, got ${show(equalsObj)}`);
  for (const [p, v] of Object.entries(equalsObj)) if (!isScalar(v)) fail(`detect.equals.${p}`, `expected a string, number or boolean, got ${show(v)}`);
  if ((has as string[]).length === 0 && Object.keys(equalsObj).length === 0) {
    fail('detect', 'give at least one path in "has" or one entry in "equals": a mapping that matches every line would swallow other formats');
  }

  if (!isObject(obj.fields) || Object.keys(obj.fields).length === 0) return fail('fields', `expected an object of SPEC_FIELD: SOURCE, got ${show(obj.fields)}`);
  const fields: [string, Source][] = [];
  for (const [target, v] of Object.entries(obj.fields)) {
    if (!TARGETS.includes(target) && !HEADER_TARGET.test(target)) {
      fail(`fields.${target}`, `not a spec field (known: ${TARGETS.join(', ')}, req_headers.NAME, resp_headers.NAME)`);
    }
    fields.push([target, parseSource(target, v)]);
  }

  const kinds: readonly string[] = RECORD_KINDS;
  if (obj.kind !== undefined && (typeof obj.kind !== 'string' || !kinds.includes(obj.kind))) {
    fail('kind', `expected one of ${kinds.join(', ')}, got ${show(obj.kind)}`);
  }
  if (obj.kind === undefined && !('kind' in obj.fields)) fail('kind', 'required (or map "fields.kind" from the line)');
  if (!('ts' in obj.fields)) fail('fields.ts', 'required: every record needs its time');

  const absent = obj.absent ?? ['', '-'];
  if (!Array.isArray(absent) || !absent.every((a) => isScalar(a) || a === null)) fail('absent', `expected a list of values that mean "not set", got ${show(absent)}`);

  return {
    name: name as string,
    has: has as string[],
    equals: Object.entries(equalsObj) as [string, Scalar][],
    fields,
    ...(typeof obj.kind === 'string' && { kind: obj.kind }),
    absent: absent as unknown[],
  };
}

/** A path into the line: a flat key first (`"req.verb"` as one key), then nested objects and array indexes. */
function lookup(obj: Json, path: string): unknown {
  if (path in obj) return obj[path];
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (Array.isArray(cur) && /^\d+$/.test(part)) cur = cur[Number(part)];
    else if (isObject(cur) && part in cur) cur = cur[part];
    else return undefined;
  }
  return cur;
}

function coerce(target: string, v: unknown): unknown {
  if (NUMERIC.has(target) && typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  if (BOOLEAN.has(target) && (v === 'true' || v === 'false')) return v === 'true';
  if (LISTS.has(target) && typeof v === 'string') return v.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return v;
}

function buildFormat(m: Mapping): InputFormat {
  const isAbsent = (v: unknown) => v === undefined || m.absent.includes(v);
  const resolve = (obj: Json, src: Source): unknown => {
    if ('value' in src) return src.value;
    const raw = lookup(obj, src.from);
    if (isAbsent(raw)) return src.default;
    if (src.scale === undefined) return raw;
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
    // A value that cannot be scaled is passed on as is: the spec normalizer then says what is wrong with it.
    return Number.isFinite(n) ? n * src.scale : raw;
  };

  return {
    name: m.name,
    detect(obj) {
      return m.has.every((p) => !isAbsent(lookup(obj, p))) && m.equals.every(([p, v]) => lookup(obj, p) === v);
    },
    toSpec(obj) {
      const out: Json = {};
      for (const [target, src] of m.fields) {
        const v = resolve(obj, src);
        if (v === undefined) continue;
        const header = HEADER_TARGET.exec(target);
        if (header) {
          const bag = (out[header[1]!] ??= {}) as Json;
          bag[header[2]!.toLowerCase()] = typeof v === 'number' ? String(v) : v;
        } else {
          out[target] = coerce(target, v);
        }
      }
      if (typeof out.kind !== 'string' && m.kind !== undefined) out.kind = m.kind;
      // Like the built-in proxy adapters: an access record belongs to the session its request presented.
      if (out.kind === 'http' && out.session === undefined && isObject(out.req_headers) && typeof out.req_headers['mcp-session-id'] === 'string') {
        out.session = out.req_headers['mcp-session-id'];
      }
      return out.kind === undefined ? [] : [out];
    },
  };
}

/** Validates a mapping (parsed JSON or its text) and returns its input format; throws MappingError naming the bad key. */
export function loadMapping(json: unknown): InputFormat {
  return buildFormat(parseMapping(json));
}

/** Reads and validates a mapping file (`--mapping FILE`); errors name the file. */
export function loadMappingFile(path: string): InputFormat {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new MappingError(`${path}: cannot read mapping file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    return loadMapping(text);
  } catch (err) {
    throw new MappingError(`${path}: ${(err as Error).message}`);
  }
}
