import { DECISIONS, RECORD_KINDS, isStatelessEra, type Decision, type NormalizedRecord, type RecordKind } from '../model/record.js';
import { has, idString, isBool, isNumber, isObject, isString, isStringOrNumber, pick, type Json } from './fields.js';
import { inferFromHttp } from './proxy-inference.js';
import { parseTime, subMillisecond, timeProblem } from './time.js';

// Turns one spec-shaped JSON object (log-format.md) into a normalized record.

const KIND_SET: ReadonlySet<string> = new Set(RECORD_KINDS);

/** Canonical name first, then the aliases the spec accepts. */
const A = {
  ts: ['ts', 'time', 'timestamp', '@timestamp'],
  session: ['session', 'session_id', 'sessionId', 'mcp_session_id', 'mcp.session.id'],
  incarnation: ['incarnation', 'session_incarnation'],
  stream: ['stream', 'stream_id', 'streamId'],
  conn: ['conn', 'connection_id'],
  principal: ['principal', 'client_id', 'subject'],
  node: ['node', 'host', 'instance', 'hostname'],
  method: ['method', 'mcp.method.name'],
  rpcId: ['rpc_id', 'jsonrpc.request.id'],
  requestId: ['request_id', 'jsonrpc.request.id'],
  protocolVersion: ['protocol_version', 'protocolVersion', 'mcp_protocol_version', 'mcp.protocol.version'],
} as const;

const KIND_ALIASES = ['event', 'type', 'msg'] as const;

/** Fields each kind cannot do without (beyond ts and kind): those log-format.md lists without `?`. */
const REQUIRED: Partial<Record<RecordKind, (keyof NormalizedRecord)[]>> = {
  'session.created': ['session'],
  'session.state_changed': ['session', 'aspect'],
  'session.terminated': ['session'],
  'session.evicted': ['session'],
  'stream.opened': ['session', 'stream', 'via'],
  'stream.closed': ['session', 'stream'],
  'stream.fenced': ['session', 'stream'],
  'event.sent': ['session', 'stream', 'eventId'],
  'event.replayed': ['session', 'stream', 'eventId'],
  'buffer.trimmed': ['session', 'oldestRetained'],
  upgrade: ['decision'],
  'request.sent': ['session', 'stream', 'requestId', 'method'],
  'request.answered': ['session', 'requestId', 'status'],
  'request.cancelled': ['session', 'requestId'],
  'request.reissued': ['session', 'requestId', 'newRequestId', 'stream'],
  'request.timed_out': ['session', 'requestId'],
  call: ['session', 'rpcId', 'method', 'status'],
  // path is informational (no rule reads it): a proxy line without one is still judged.
  http: ['httpMethod', 'status'],
};

const SPEC_NAME: Partial<Record<keyof NormalizedRecord, string>> = {
  eventId: 'event_id',
  oldestRetained: 'oldest_retained',
  requestId: 'request_id',
  newRequestId: 'new_request_id',
  rpcId: 'rpc_id',
  httpMethod: 'method',
};

export type SpecOutcome =
  | { type: 'records'; records: NormalizedRecord[] }
  | { type: 'ignored' }
  | { type: 'rejected'; reason: string };

/** The record kind of an object: canonical `kind`, else a string alias naming a known kind. */
export function kindOf(obj: Json): { kind?: RecordKind; unknownCanonical?: string } {
  const canonical = pick(obj, ['kind'], isString) as string | undefined;
  if (canonical !== undefined) return KIND_SET.has(canonical) ? { kind: canonical as RecordKind } : { unknownCanonical: canonical };
  for (const alias of KIND_ALIASES) {
    const v = pick(obj, [alias], isString) as string | undefined;
    if (v !== undefined && KIND_SET.has(v)) return { kind: v as RecordKind };
  }
  return {};
}

export function normalizeSpecObject(obj: Json): SpecOutcome {
  const { kind, unknownCanonical } = kindOf(obj);
  if (unknownCanonical !== undefined) return { type: 'rejected', reason: `unknown kind "${unknownCanonical}"` };
  if (kind === undefined) return { type: 'ignored' };

  const tsRaw = pick(obj, A.ts, isStringOrNumber);
  if (tsRaw === undefined) return { type: 'rejected', reason: `${kind}: missing ts` };
  const tsMs = parseTime(tsRaw);
  if (tsMs === undefined) return { type: 'rejected', reason: `${kind}: ${timeProblem(tsRaw)}` };

  const str = (names: readonly string[]) => pick(obj, names, isString) as string | undefined;
  const id = (names: readonly string[]) => idString(pick(obj, names, isStringOrNumber));
  const num = (names: readonly string[]) => pick(obj, names, isNumber) as number | undefined;
  const bool = (names: readonly string[]) => pick(obj, names, isBool) as boolean | undefined;

  // An http access record is the proxy's view; it and what is inferred from it are origin 'proxy'.
  const rec: NormalizedRecord = { kind, tsMs, origin: kind === 'http' ? 'proxy' : 'server' };
  const set = <K extends keyof NormalizedRecord>(k: K, v: NormalizedRecord[K] | undefined) => {
    if (v !== undefined) rec[k] = v;
  };

  set('tsSubMs', subMillisecond(tsRaw));
  set('seq', num(['seq']));
  set('node', str(A.node));
  // `session` may be explicitly null on an upgrade (header absent).
  const session = id(A.session);
  if (session !== undefined) rec.session = session;
  else if (has(obj, A.session)) rec.session = null;
  set('incarnation', id(A.incarnation));
  set('stream', id(A.stream));
  set('sequence', id(['sequence']));
  set('conn', id(A.conn));
  set('principal', str(A.principal));
  set('req', id(['req']));
  set('protocolVersion', str(A.protocolVersion));
  set('via', str(['via']));
  set('reason', str(['reason']));
  set('aspect', str(['aspect']));
  set('logEvicted', bool(['log_evicted']));
  set('retryMs', num(['retry_ms']));
  set('eventId', id(['event_id']));
  set('rpcKind', str(['rpc_kind']));
  set('rpcId', id(A.rpcId));
  set('attached', bool(['attached']));
  set('priming', bool(['priming']));
  set('ofStream', id(['of_stream']));
  set('oldestRetained', id(['oldest_retained']));
  const lei = id(['last_event_id']);
  if (lei !== undefined) rec.lastEventId = lei;
  else if (has(obj, ['last_event_id'])) rec.lastEventId = null;
  set('newStream', id(['new_stream']));
  const decision = str(['decision']);
  if (decision !== undefined) {
    if (!(DECISIONS as readonly string[]).includes(decision)) return { type: 'rejected', reason: `${kind}: unknown decision "${decision}"` };
    rec.decision = decision as Decision;
  }
  set('status', num(['status']));
  set('replayed', num(['replayed']));
  set('reemitted', num(['reemitted']));
  set('cancelled', num(['cancelled']));
  set('firstReplayed', id(['first_replayed']));
  const ids = pick(obj, ['replayed_ids'], Array.isArray) as unknown[] | undefined;
  if (ids) rec.replayedIds = ids.map(idString).filter((x): x is string => x !== undefined);
  set('newSession', id(['new_session']));
  set('resetSignalled', bool(['reset_signalled']));
  set('requestId', id(kind === 'call' ? ['request_id'] : A.requestId));
  set('newRequestId', id(['new_request_id']));
  set('tool', str(['tool', 'gen_ai.tool.name']));
  set('argsHash', str(['args_hash']));
  set('executed', bool(['executed']));

  if (kind === 'http') {
    set('httpMethod', str(['method', 'http.request.method']));
    set('path', str(['path', 'url.path']));
    set('reqHeaders', headers(pick(obj, ['req_headers'], isObject)));
    set('respHeaders', headers(pick(obj, ['resp_headers'], isObject)));
    if (rec.protocolVersion === undefined) set('protocolVersion', rec.reqHeaders?.['mcp-protocol-version']);
    const sse = pick(obj, ['sse_event_ids'], Array.isArray) as unknown[] | undefined;
    if (sse) rec.sseEventIds = sse.map(idString).filter((x): x is string => x !== undefined);
    set('method', str(['rpc_method']));
    set('durationMs', num(['duration_ms']));
    set('bytes', num(['bytes']));
  } else {
    set('method', str(A.method));
  }

  // Since 2026-07-28 a request has no session: its records are valid without one.
  const sessionless = isStatelessEra(rec.protocolVersion);
  for (const field of REQUIRED[kind] ?? []) {
    if (field === 'session' && sessionless) continue;
    if (rec[field] === undefined || rec[field] === null) {
      return { type: 'rejected', reason: `${kind}: missing required field ${SPEC_NAME[field] ?? field}` };
    }
  }
  if (kind === 'http') return { type: 'records', records: [rec, ...inferFromHttp(rec)] };
  return { type: 'records', records: [rec] };
}

function headers(v: unknown): Record<string, string> | undefined {
  if (!isObject(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    const s = Array.isArray(val) ? val[0] : val;
    if (typeof s === 'string' || typeof s === 'number') out[k.toLowerCase()] = String(s);
  }
  return out;
}
