import { RECORD_KINDS } from '../../model/record.js';
import { isObject, type Json } from '../fields.js';
import { anyValue, field, keyValues, nanosToMs } from './otlp-values.js';
import type { InputFormat } from './types.js';

// OpenTelemetry logs as OTLP/JSON: an ExportLogsServiceRequest per line
// (`{"resourceLogs":[…]}`, what the collector's file exporter writes), or one
// flattened log record per line. Each log record that names a record kind
// becomes one spec object: its attributes are the spec fields (the spec
// already accepts `mcp.session.id`, `mcp.method.name`, `jsonrpc.request.id`).

const KNOWN_KINDS: ReadonlySet<string> = new Set(RECORD_KINDS);

/** Attributes that may name the record kind, in order. */
const KIND_ATTRIBUTES = ['kind', 'resumescope.kind', 'event.name'];

function knownKind(v: unknown): string | undefined {
  return typeof v === 'string' && KNOWN_KINDS.has(v) ? v : undefined;
}

function firstString(...vs: unknown[]): string | undefined {
  return vs.find((v): v is string => typeof v === 'string' && v !== '');
}

/** A body that is itself a JSON object (a filelog receiver reading NDJSON without a parser). */
function bodyFields(body: unknown): Json {
  if (isObject(body)) return body;
  if (typeof body !== 'string' || !body.trimStart().startsWith('{')) return {};
  try {
    const parsed: unknown = JSON.parse(body);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** OTel HTTP semantic conventions → the spec's `http` fields, where the record does not give them already. */
function httpFields(f: Json): Json {
  const out: Json = {};
  const status = f.status ?? f['http.response.status_code'];
  if (status !== undefined) out.status = status;
  const headers = (prefix: string) => {
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(f)) {
      if (!k.startsWith(prefix)) continue;
      // Semantic conventions give header values as string arrays.
      const value = Array.isArray(v) ? v[0] : v;
      if (typeof value === 'string' || typeof value === 'number') h[k.slice(prefix.length).toLowerCase()] = String(value);
    }
    return h;
  };
  if (!isObject(f.req_headers)) out.req_headers = headers('http.request.header.');
  if (!isObject(f.resp_headers)) out.resp_headers = headers('http.response.header.');
  const reqHeaders = (out.req_headers ?? f.req_headers) as Json;
  if (f.session === undefined && f['mcp.session.id'] === undefined && typeof reqHeaders['mcp-session-id'] === 'string') {
    out.session = reqHeaders['mcp-session-id'];
  }
  return out;
}

/** One log record → one spec object, or undefined when it names no known kind. */
function recordToSpec(lr: Json, resource: Json): Json | undefined {
  const attrs = keyValues(field(lr, 'attributes'));
  const body = anyValue(field(lr, 'body'));
  const fields: Json = { ...bodyFields(body), ...attrs };
  const kind =
    KIND_ATTRIBUTES.map((k) => knownKind(fields[k])).find((k) => k !== undefined) ??
    knownKind(field(lr, 'eventName')) ??
    knownKind(body);
  if (kind === undefined) return undefined;

  const out: Json = { ...fields, kind };
  // The event's own time first; the collector's observed time only when the event has none.
  const ts = nanosToMs(field(lr, 'timeUnixNano'));
  const observed = nanosToMs(field(lr, 'observedTimeUnixNano'));
  if (ts !== undefined) out.ts = ts;
  else if (fields.ts === undefined && observed !== undefined) out.ts = observed;
  if (typeof out.node !== 'string') {
    const node = firstString(fields['service.instance.id'], resource['service.instance.id'], fields['host.name'], resource['host.name']);
    if (node !== undefined) out.node = node;
  }
  return kind === 'http' ? { ...out, ...httpFields(out) } : out;
}

function resourceAttributes(resource: unknown): Json {
  if (!isObject(resource)) return {};
  const attrs = field(resource, 'attributes');
  // Flattening exporters write the resource either as OTLP KeyValues or as a plain map.
  return Array.isArray(attrs) ? keyValues(attrs) : isObject(attrs) ? attrs : resource;
}

function arrayField(obj: Json, ...names: string[]): unknown[] {
  for (const n of names) {
    const v = field(obj, n);
    if (Array.isArray(v)) return v;
  }
  return [];
}

function isFlatRecord(obj: Json): boolean {
  const hasTime = field(obj, 'timeUnixNano') !== undefined || field(obj, 'observedTimeUnixNano') !== undefined;
  return hasTime && (Array.isArray(field(obj, 'attributes')) || isObject(field(obj, 'body')));
}

export const otlp: InputFormat = {
  name: 'otlp',
  detect(obj) {
    return Array.isArray(field(obj, 'resourceLogs')) || isFlatRecord(obj);
  },
  toSpec(obj) {
    const out: Json[] = [];
    const add = (lr: unknown, resource: Json) => {
      if (!isObject(lr)) return;
      const spec = recordToSpec(lr, resource);
      if (spec !== undefined) out.push(spec);
    };
    const resourceLogs = field(obj, 'resourceLogs');
    if (!Array.isArray(resourceLogs)) {
      add(obj, resourceAttributes(field(obj, 'resource')));
      return out;
    }
    for (const rl of resourceLogs) {
      if (!isObject(rl)) continue;
      const resource = resourceAttributes(field(rl, 'resource'));
      // instrumentationLibraryLogs: the name before OTLP 0.15, still written by old SDKs.
      for (const sl of arrayField(rl, 'scopeLogs', 'instrumentationLibraryLogs')) {
        if (!isObject(sl)) continue;
        for (const lr of arrayField(sl, 'logRecords')) add(lr, resource);
      }
    }
    return out;
  },
};
