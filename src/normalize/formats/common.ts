import { isObject, type Json } from '../fields.js';
import { isCredentialName } from '../redact.js';

// Helpers shared by the proxy adapters (nginx, Envoy): access-log values are
// mostly strings, missing variables are written as "-" or "", and key names
// vary in case and separator from one configuration to the next.

/** nginx writes "-" (or "" under escape=json) for an unset variable, Envoy null or "-". */
function isPresent(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '' && v !== '-';
}

/** `requestMethod`, `request-method`, `REQUEST_METHOD` and `:method` all become `request-method` / `method`. */
export function normalizeKey(key: string): string {
  return key
    .replace(/^:/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/_/g, '-');
}

/** The top-level fields of one access-log line, looked up by normalized key; absent values dropped. */
export class KeyIndex {
  private readonly values = new Map<string, unknown>();

  constructor(obj: Json) {
    for (const [k, v] of Object.entries(obj)) {
      const key = normalizeKey(k);
      if (isPresent(v) && !this.values.has(key)) this.values.set(key, v);
    }
  }

  /** The first present value among `names` (normalized keys). */
  get(names: readonly string[]): unknown {
    for (const n of names) {
      const v = this.values.get(n);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  has(names: readonly string[]): boolean {
    return this.get(names) !== undefined;
  }

  /** A string or a number, as a string. */
  text(names: readonly string[]): string | undefined {
    const v = this.get(names);
    return typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;
  }

  /** A number, or a string holding one (nginx quotes every variable). */
  number(names: readonly string[]): number | undefined {
    return toNumber(this.get(names));
  }

  entries(): IterableIterator<[string, unknown]> {
    return this.values.entries();
  }
}

function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  return undefined;
}

/** `$request_time` and friends are seconds with millisecond resolution. */
export function secondsToMs(v: number | undefined): number | undefined {
  return v === undefined ? undefined : Math.round(v * 1000);
}

/** Headers an access record does not carry into its `http` record at all (the raw line holds them redacted). */
function isSecretHeader(name: string): boolean {
  return isCredentialName(name);
}

export interface RpcInfo {
  rpc_kind?: string;
  rpc_id?: string;
  rpc_method?: string;
}

/**
 * What a logged JSON-RPC body carried (nginx `$request_body`): enough to tell a
 * client's answer to a server request from a new call. Only single messages:
 * batches were removed from the MCP transport.
 */
export function rpcFromBody(body: unknown): RpcInfo | undefined {
  if (typeof body !== 'string' || !body.trimStart().startsWith('{')) return undefined;
  let msg: unknown;
  try {
    msg = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isObject(msg)) return undefined;
  const id = typeof msg.id === 'string' || typeof msg.id === 'number' ? String(msg.id) : undefined;
  const method = typeof msg.method === 'string' ? msg.method : undefined;
  if (('result' in msg || 'error' in msg) && id !== undefined) return { rpc_kind: 'response', rpc_id: id };
  if (method !== undefined && id !== undefined) return { rpc_kind: 'request', rpc_id: id, rpc_method: method };
  if (method !== undefined) return { rpc_kind: 'notification', rpc_method: method };
  return undefined;
}

/** What one proxy access line says, before it becomes a spec `http` record. */
export interface AccessLine {
  ts: unknown;
  method?: string;
  path?: string;
  status?: number;
  reqHeaders: Record<string, string>;
  respHeaders: Record<string, string>;
  rpc?: RpcInfo;
  durationMs?: number;
  bytes?: number;
  conn?: string;
  req?: string;
  principal?: string;
  node?: string;
  /** The upstream that answered, where the proxy logs it: the server node of what is inferred from the line. */
  upstream?: string;
}

/**
 * Whether a request was MCP traffic at all. A proxy log also holds health
 * checks and other routes; a GET /healthz must not be read as an attach.
 * Every MCP client sends `Accept: …text/event-stream` (or a session header),
 * so plain traffic carries none of these.
 */
export function isMcpTraffic(a: AccessLine): boolean {
  const q = a.reqHeaders;
  const r = a.respHeaders;
  return (
    q['mcp-session-id'] !== undefined ||
    q['last-event-id'] !== undefined ||
    q['mcp-protocol-version'] !== undefined ||
    (q['accept'] ?? '').includes('text/event-stream') ||
    r['mcp-session-id'] !== undefined ||
    (r['content-type'] ?? '').includes('text/event-stream') ||
    a.rpc?.rpc_kind !== undefined
  );
}

/**
 * The spec `http` record for an access line (log-format.md, "Proxy access
 * records"). `session` is the request's Mcp-Session-Id, so the record is found
 * with its session's other records. An absent status is left absent: the spec
 * normalizer then rejects the line and says why.
 */
export function httpRecord(a: AccessLine): Json {
  const out: Json = { kind: 'http', ts: a.ts, req_headers: a.reqHeaders, resp_headers: a.respHeaders };
  const set = (k: string, v: unknown) => {
    if (v !== undefined) out[k] = v;
  };
  set('method', a.method);
  set('path', a.path);
  set('status', a.status);
  set('session', a.reqHeaders['mcp-session-id']);
  set('rpc_kind', a.rpc?.rpc_kind);
  set('rpc_id', a.rpc?.rpc_id);
  set('rpc_method', a.rpc?.rpc_method);
  set('duration_ms', a.durationMs);
  set('bytes', a.bytes);
  set('conn', a.conn);
  set('req', a.req);
  set('principal', a.principal);
  set('node', a.node);
  set('upstream', a.upstream);
  return out;
}

/**
 * "10.0.0.7:8080, 10.0.0.8:8080" after a retry, "a : b" after an internal
 * redirect: the last upstream is the one that answered.
 */
export function lastOfList(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const parts = v.split(/\s*,\s*|\s+:\s+/).map((s) => s.trim()).filter((s) => isPresent(s));
  return parts[parts.length - 1];
}

/** The MCP-relevant headers, the only ones taken from generic `req_`/`resp_` key prefixes. */
export const MCP_HEADERS: readonly string[] = ['mcp-session-id', 'last-event-id', 'accept', 'mcp-protocol-version', 'content-type'];

export type HeaderRoute = { side: 'req' | 'resp'; name: string; rank: number };

/**
 * Gathers request and response headers from an access line's keys. `route`
 * says where a (normalized) key goes; when two keys name one header, the lower
 * rank wins (nginx `$sent_http_*` over `$upstream_http_*`).
 */
export function collectHeaders(index: KeyIndex, route: (key: string) => HeaderRoute | undefined): { req: Record<string, string>; resp: Record<string, string> } {
  const out = { req: {} as Record<string, string>, resp: {} as Record<string, string> };
  const ranks = new Map<string, number>();
  for (const [key, value] of index.entries()) {
    const r = route(key);
    if (r === undefined || isSecretHeader(r.name)) continue;
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    const slot = `${r.side}:${r.name}`;
    const prior = ranks.get(slot);
    if (prior !== undefined && prior <= r.rank) continue;
    ranks.set(slot, r.rank);
    out[r.side][r.name] = String(value);
  }
  return out;
}

/** A key `<prefix><header>` for one of MCP_HEADERS, e.g. `resp_mcp_session_id`. */
export function knownHeaderAfter(key: string, prefixes: readonly string[]): string | undefined {
  for (const p of prefixes) {
    if (key.startsWith(p) && MCP_HEADERS.includes(key.slice(p.length))) return key.slice(p.length);
  }
  return undefined;
}
