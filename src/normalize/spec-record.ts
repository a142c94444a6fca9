import { RECORD_KINDS, isStatelessEra, missingField, type Decision, type NormalizedRecord, type RecordKind } from '../model/record.js';
import { FieldReader, wrapperOf, idString, isBool, isNumber, isObject, isString, isStringOrNumber, type Field, type Json } from './fields.js';
import { inferFromHttp } from './proxy-inference.js';
import { nearKind } from './near-kinds.js';
import { parseTime, subMillisecond, timeProblem } from './time.js';
import { CLOSED_SETS, settle, show, type FieldType } from './typed-values.js';

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
  // ECS loggers (ecs-pino-format, ecs-winston) write the host as an object: its name, as Filebeat's host.name is.
  node: ['node', 'host', 'instance', 'hostname', 'host.name', 'host.hostname'],
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
  /** `inherits`: its record is read only if its stream is a stateless request's (model/record.ts InheritingRecord). */
  | { type: 'records'; records: NormalizedRecord[]; inherits?: { otherwise?: string } }
  | { type: 'ignored' }
  | { type: 'rejected'; reason: string };

/**
 * A field's names, and after them the camelCase spelling of each snake_case one (`lastEventId`, `newStream`,
 * `requestId`): a JavaScript logger's, as the spec's own `sessionId` and `streamId` are. Dotted names are paths.
 */
function withCamelCase(names: readonly string[]): string[] {
  const out = [...names];
  for (const n of names) {
    if (!n.includes('_') || n.includes('.')) continue;
    const camel = n.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    if (!out.includes(camel)) out.push(camel);
  }
  return out;
}

const str = (...names: string[]): Field => ({ names: withCamelCase(names), accept: isString });
const id = (...names: string[]): Field => ({ names: withCamelCase(names), accept: isStringOrNumber });
const num = (...names: string[]): Field => ({ names: withCamelCase(names), accept: isNumber });
const bool = (...names: string[]): Field => ({ names: withCamelCase(names), accept: isBool });

/** Every field a record may have, read in one pass over the object (fields.ts). */
const FIELD_DEFS = {
  kind: str('kind'),
  // Each kind alias on its own: an alias naming no kind gives way to the next.
  event: str('event'),
  type: str('type'),
  msg: str('msg'),
  ts: { names: A.ts, accept: isStringOrNumber },
  seq: num('seq'),
  node: str(...A.node),
  // A proxy line's upstream (the server node that answered it); its `node` is the proxy host that wrote it.
  upstream: str('upstream', 'upstream_addr', 'upstream_host'),
  session: id(...A.session),
  incarnation: id(...A.incarnation),
  stream: id(...A.stream),
  sequence: id('sequence'),
  conn: id(...A.conn),
  principal: str(...A.principal),
  req: id('req'),
  protocolVersion: str(...A.protocolVersion),
  via: str('via'),
  reason: str('reason'),
  aspect: str('aspect'),
  logEvicted: bool('log_evicted'),
  retryMs: num('retry_ms'),
  eventId: id('event_id'),
  rpcKind: str('rpc_kind'),
  rpcId: id(...A.rpcId),
  attached: bool('attached'),
  priming: bool('priming'),
  ofStream: id('of_stream'),
  oldestRetained: id('oldest_retained'),
  lastEventId: id('last_event_id'),
  newStream: id('new_stream'),
  decision: str('decision'),
  status: num('status'),
  replayed: num('replayed'),
  reemitted: num('reemitted'),
  cancelled: num('cancelled'),
  firstReplayed: id('first_replayed'),
  replayedIds: { names: withCamelCase(['replayed_ids']), accept: Array.isArray },
  newSession: id('new_session'),
  resetSignalled: bool('reset_signalled'),
  requestId: id(...A.requestId),
  // A call's request_id only: its jsonrpc.request.id is its rpc_id. No camelCase: a call is no server request,
  // and a web framework's `requestId` on it is its own HTTP request's.
  callRequestId: { names: ['request_id'], accept: isStringOrNumber },
  newRequestId: id('new_request_id'),
  tool: str('tool', 'gen_ai.tool.name'),
  argsHash: str('args_hash'),
  executed: bool('executed'),
  httpMethod: str('method', 'http.request.method'),
  path: str('path', 'url.path'),
  reqHeaders: { names: withCamelCase(['req_headers']), accept: isObject },
  respHeaders: { names: withCamelCase(['resp_headers']), accept: isObject },
  sseEventIds: { names: withCamelCase(['sse_event_ids']), accept: Array.isArray },
  rpcMethod: str('rpc_method'),
  durationMs: num('duration_ms'),
  bytes: num('bytes'),
  method: str(...A.method),
} satisfies Record<string, Field>;
// Generic words another field of a line may be named (`Host` a header, `Subject` a mail's): a key near them is no slip.
const FIELDS = new FieldReader(FIELD_DEFS, { unlessNear: ['host', 'instance', 'hostname', 'subject'] });
const F = FIELDS.at;
type FieldKey = keyof typeof F;

/** The fields each kind reads (log-format.md's tables), beyond the common ones: a key near another's name is no slip. */
const COMMON: FieldKey[] = ['ts', 'seq', 'node', 'session', 'incarnation', 'sequence', 'conn', 'principal', 'req', 'protocolVersion'];
const READS: Record<RecordKind, FieldKey[]> = {
  'session.created': [],
  'session.state_changed': ['aspect'],
  'session.terminated': ['reason'],
  'session.evicted': ['reason', 'logEvicted'],
  'stream.opened': ['stream', 'via'],
  'stream.closed': ['stream', 'reason', 'retryMs'],
  'stream.fenced': ['stream'],
  'event.sent': ['stream', 'eventId', 'rpcKind', 'rpcId', 'method', 'attached', 'priming'],
  'event.replayed': ['stream', 'eventId', 'ofStream'],
  'buffer.trimmed': ['stream', 'oldestRetained'],
  upgrade: ['lastEventId', 'stream', 'newStream', 'decision', 'status', 'reason', 'replayed', 'reemitted', 'cancelled', 'firstReplayed', 'replayedIds', 'newSession', 'resetSignalled'],
  'request.sent': ['stream', 'requestId', 'method', 'eventId'],
  'request.answered': ['requestId', 'status'],
  'request.cancelled': ['requestId', 'reason'],
  'request.reissued': ['requestId', 'newRequestId', 'stream'],
  'request.timed_out': ['requestId'],
  call: ['rpcId', 'method', 'tool', 'argsHash', 'status', 'executed'],
  http: ['httpMethod', 'path', 'status', 'reqHeaders', 'respHeaders', 'sseEventIds', 'rpcKind', 'rpcMethod', 'rpcId', 'resetSignalled', 'durationMs', 'bytes'],
};
const READ_BY_KIND = new Map(RECORD_KINDS.map((k) => [k, new Set([...COMMON, ...READS[k]].map((f) => F[f]))]));

/** How each typed field's value is checked where its kind reads it (typed-values.ts). */
const TYPES: Partial<Record<FieldKey, FieldType>> = {
  seq: 'seq', status: 'status', replayed: 'count', reemitted: 'count', cancelled: 'count',
  retryMs: 'amount', durationMs: 'amount', bytes: 'amount',
  logEvicted: 'bool', attached: 'bool', priming: 'bool', resetSignalled: 'bool', executed: 'bool',
  eventId: 'eventId', lastEventId: 'eventId', firstReplayed: 'eventId', oldestRetained: 'eventId', replayedIds: 'eventIds', sseEventIds: 'eventIds',
  session: 'id', stream: 'id', rpcId: 'id', requestId: 'id', newRequestId: 'id',
  via: 'via', rpcKind: 'rpcKind', decision: 'decision',
};

interface Typed {
  at: number;
  type: FieldType;
  /** As log-format.md spells it, for the reason. */
  name: string;
  /** The names whose value of another type is the writer's, not an alias's (log-format.md: an alias is used only where its value has the expected type). */
  own: readonly string[];
  /**
   * Whether a value of another type than the reader takes rejects the line. An optional id is read as absent
   * then, as an unknown field: pino-http binds its request object as `req`. A required one was rejected as missing.
   */
  strict: boolean;
}

const TYPED_BY_KIND = new Map(
  RECORD_KINDS.map((kind) => {
    const required = new Set<string>(REQUIRED[kind] ?? []);
    const typed: Typed[] = [];
    for (const key of [...COMMON, ...READS[kind]]) {
      const type = TYPES[key];
      if (type === undefined) continue;
      const canonical = FIELD_DEFS[key].names[0]!;
      const own = withCamelCase([canonical]);
      typed.push({ at: F[key], type, name: canonical, own, strict: (type !== 'id' && type !== 'eventId') || required.has(key) });
    }
    return [kind, typed];
  }),
);

/**
 * Settles the typed fields the kind reads (typed-values.ts), in place in `v`: why the line is rejected, or
 * undefined. The reader left a value of another type than it takes undefined; where the field's own name
 * holds one, it is looked up again (a line of the right types pays nothing for it).
 */
function settleTyped(kind: RecordKind, obj: Json, v: unknown[]): string | undefined {
  for (const t of TYPED_BY_KIND.get(kind)!) {
    if (v[t.at] === undefined) {
      if (!t.strict || !FIELDS.found(t.at)) continue;
      // null is absent, as the reader has it (an upgrade's null session is set apart where it is read).
      const own = ownValue(obj, t.own);
      if (own === undefined || own === null) continue;
      v[t.at] = own;
    }
    const problem = settle(t.type, t.name, v, t.at);
    if (problem !== undefined) return `${kind}: ${problem}`;
  }
  return undefined;
}

/** The value under one of `names`, at the top level, else in the first wrapper that is an object (as FieldReader looks). */
function ownValue(obj: Json, names: readonly string[]): unknown {
  for (const n of names) if (obj[n] !== undefined) return obj[n];
  const inner = wrapperOf(obj);
  if (inner !== undefined) for (const n of names) if (inner[n] !== undefined) return inner[n];
  return undefined;
}

/**
 * A key of the record that is no field's name but differs from the name of a field its kind reads only in
 * case or separators (`Session`, `LastEventID`), where the record has no such field: the writer meant it, and
 * read without it the record says something else (an upgrade with no session, a resume without
 * Last-Event-ID). Field names are case-sensitive, so the line is rejected, saying which name was meant.
 */
function slipOf(kind: RecordKind): string | undefined {
  const reads = READ_BY_KIND.get(kind)!;
  for (const near of FIELDS.nearMisses()) {
    const candidates = near.meant.filter((m) => reads.has(m.field) && !FIELDS.found(m.field));
    // `SessionId` meant `sessionId` rather than `session_id`: the name it differs from in case only, if one.
    const meant = candidates.find((m) => m.name.toLowerCase() === near.key.toLowerCase()) ?? candidates[0];
    if (meant !== undefined) return `${kind}: unknown field "${near.key}": did you mean "${meant.name}"? (field names are case-sensitive)`;
  }
  return undefined;
}

/**
 * The record kind of an object: canonical `kind`, else a string alias naming a known kind. `nearAlias`: no
 * kind, but an alias that names one but for case or separators, or a family's kind but for a letter or its end
 * (near-kinds.ts): the reason to reject it with.
 */
export function kindOf(obj: Json): KindOutcome {
  return kindIn(FIELDS.read(obj));
}

interface KindOutcome {
  kind?: RecordKind;
  unknownCanonical?: string;
  nearAlias?: string;
}

function kindIn(v: readonly unknown[]): KindOutcome {
  const canonical = v[F.kind] as string | undefined;
  if (canonical !== undefined) return KIND_SET.has(canonical) ? { kind: canonical as RecordKind } : { unknownCanonical: canonical };
  for (const alias of KIND_ALIASES) {
    const k = v[F[alias]] as string | undefined;
    if (k !== undefined && KIND_SET.has(k)) return { kind: k as RecordKind };
  }
  // Asked only of a line that is no record: a record pays nothing. A line that carries none of the fields of
  // the kind it looks meant for is a sentence ("Session created"), the application's: ignored as before.
  for (const alias of KIND_ALIASES) {
    const k = v[F[alias]] as string | undefined;
    const meant = k === undefined ? undefined : nearKind(k);
    if (meant !== undefined && READS[meant].concat('session').some((f) => v[F[f]] !== undefined)) return { nearAlias: `unknown kind "${k}" in ${alias}: did you mean "${meant}"? (kinds are case-sensitive)` };
  }
  return {};
}

/** Why a canonical kind that names none is rejected, with the kind it looks meant for. */
function unknownKind(kind: string): string {
  const meant = nearKind(kind);
  return meant === undefined ? `unknown kind "${kind}"` : `unknown kind "${kind}": did you mean "${meant}"?`;
}

/**
 * What an object that is no record almost was, for the message of a file none of whose lines is one: a key
 * naming the kind in another case (`Kind`, `KIND`: Serilog's, a .NET logger's), or a kind in `message`
 * (winston's `logger.info('upgrade', {…})`, Datadog's archive of pino's `msg`). Undefined where neither.
 */
export function ignoredHint(obj: Json): string | undefined {
  FIELDS.read(obj);
  const kindFields = new Set([F.kind, F.event, F.type, F.msg]);
  for (const near of FIELDS.nearMisses()) {
    const meant = near.meant.find((m) => kindFields.has(m.field));
    if (meant !== undefined) return `"${near.key}" is no field (field names are case-sensitive): did you mean "${meant.name}"?`;
  }
  const message = obj.message;
  if (typeof message === 'string' && KIND_SET.has(message)) {
    return `"message" is "${message}", a kind, but "message" names no kind: log it as "kind" (or "msg")`;
  }
  return undefined;
}

/** What a record's envelope says where the record itself says nothing (normalize/envelopes.ts): when, and which host or pod. */
export interface RecordDefaults {
  ts?: string;
  node?: string;
}

export function normalizeSpecObject(obj: Json, defaults?: RecordDefaults): SpecOutcome {
  // Settled in place (settleTyped): the reader's array, which its next read resets.
  const v = FIELDS.read(obj) as unknown[];
  const { kind, unknownCanonical, nearAlias } = kindIn(v);
  if (unknownCanonical !== undefined) return { type: 'rejected', reason: unknownKind(unknownCanonical) };
  if (nearAlias !== undefined) return { type: 'rejected', reason: nearAlias };
  if (kind === undefined) return { type: 'ignored' };
  if (FIELDS.nearMisses().length > 0) {
    const slip = slipOf(kind);
    if (slip !== undefined) return { type: 'rejected', reason: slip };
  }

  const tsRaw = (v[F.ts] as string | number | undefined) ?? defaults?.ts;
  if (tsRaw === undefined) {
    // `"ts":true` is no missing time: say what was written (an alias of another type is not used, as any alias).
    const own = ownValue(obj, ['ts']);
    const written = own === undefined || own === null ? undefined : `${kind}: ts must be an RFC 3339 string or epoch milliseconds, got ${show(own)}`;
    return { type: 'rejected', reason: written ?? `${kind}: missing ts` };
  }
  const tsMs = parseTime(tsRaw);
  if (tsMs === undefined) return { type: 'rejected', reason: `${kind}: ${timeProblem(tsRaw)}` };
  const typeProblem = settleTyped(kind, obj, v);
  if (typeProblem !== undefined) return { type: 'rejected', reason: typeProblem };

  // An http access record is the proxy's view; it and what is inferred from it are origin 'proxy'.
  const rec: NormalizedRecord = { kind, tsMs, origin: kind === 'http' ? 'proxy' : 'server' };
  // Fields are set in this order, only where they have a value: a record's keys are its shape (store/insert.ts).

  const subMs = subMillisecond(tsRaw);
  if (subMs !== undefined) rec.tsSubMs = subMs;
  put(rec, 'seq', v[F.seq]);
  put(rec, 'node', v[F.node] ?? defaults?.node);
  // `session` may be explicitly null on an upgrade (header absent).
  const session = idString(v[F.session]);
  if (session !== undefined) rec.session = session;
  else if (FIELDS.found(F.session)) rec.session = null;
  put(rec, 'incarnation', idString(v[F.incarnation]));
  put(rec, 'stream', idString(v[F.stream]));
  put(rec, 'sequence', idString(v[F.sequence]));
  put(rec, 'conn', idString(v[F.conn]));
  put(rec, 'principal', v[F.principal]);
  put(rec, 'req', idString(v[F.req]));
  put(rec, 'protocolVersion', v[F.protocolVersion]);
  put(rec, 'via', v[F.via]);
  put(rec, 'reason', v[F.reason]);
  put(rec, 'aspect', v[F.aspect]);
  put(rec, 'logEvicted', v[F.logEvicted]);
  put(rec, 'retryMs', v[F.retryMs]);
  put(rec, 'eventId', idString(v[F.eventId]));
  put(rec, 'rpcKind', v[F.rpcKind]);
  put(rec, 'rpcId', idString(v[F.rpcId]));
  put(rec, 'attached', v[F.attached]);
  put(rec, 'priming', v[F.priming]);
  put(rec, 'ofStream', idString(v[F.ofStream]));
  put(rec, 'oldestRetained', idString(v[F.oldestRetained]));
  const lei = idString(v[F.lastEventId]);
  if (lei !== undefined) rec.lastEventId = lei;
  else if (FIELDS.found(F.lastEventId)) rec.lastEventId = null;
  put(rec, 'newStream', idString(v[F.newStream]));
  // An upgrade's is settled (typed-values.ts); another kind does not read one, and keeps only a decision as written.
  const decision = v[F.decision] as string | undefined;
  if (decision !== undefined && (kind === 'upgrade' || CLOSED_SETS.decision.includes(decision))) rec.decision = decision as Decision;
  put(rec, 'status', v[F.status]);
  put(rec, 'replayed', v[F.replayed]);
  put(rec, 'reemitted', v[F.reemitted]);
  put(rec, 'cancelled', v[F.cancelled]);
  put(rec, 'firstReplayed', idString(v[F.firstReplayed]));
  const ids = v[F.replayedIds] as unknown[] | undefined;
  if (ids) rec.replayedIds = ids.map((id) => idString(id)!);
  put(rec, 'newSession', idString(v[F.newSession]));
  put(rec, 'resetSignalled', v[F.resetSignalled]);
  put(rec, 'requestId', idString(v[kind === 'call' ? F.callRequestId : F.requestId]));
  put(rec, 'newRequestId', idString(v[F.newRequestId]));
  put(rec, 'tool', v[F.tool]);
  put(rec, 'argsHash', v[F.argsHash]);
  put(rec, 'executed', v[F.executed]);

  if (kind === 'http') {
    put(rec, 'httpMethod', v[F.httpMethod]);
    put(rec, 'path', v[F.path]);
    const reqHeaders = headers(v[F.reqHeaders]);
    if (reqHeaders !== undefined) rec.reqHeaders = reqHeaders;
    const respHeaders = headers(v[F.respHeaders]);
    if (respHeaders !== undefined) rec.respHeaders = respHeaders;
    if (rec.protocolVersion === undefined && rec.reqHeaders?.['mcp-protocol-version'] !== undefined) rec.protocolVersion = rec.reqHeaders['mcp-protocol-version'];
    // As for an access line (formats/common.ts httpRecord): the request's session, so that the record is found, and
    // quoted, with its session's other records.
    if (rec.session === undefined && rec.reqHeaders?.['mcp-session-id'] !== undefined) rec.session = rec.reqHeaders['mcp-session-id'];
    const sse = v[F.sseEventIds] as unknown[] | undefined;
    if (sse) rec.sseEventIds = sse.map((id) => idString(id)!);
    put(rec, 'method', v[F.rpcMethod]);
    put(rec, 'durationMs', v[F.durationMs]);
    put(rec, 'bytes', v[F.bytes]);
  } else {
    put(rec, 'method', v[F.method]);
  }

  // An empty id names nothing: `event_id: ""` is no event's id, and matches every other empty one.
  const empty = (REQUIRED[kind] ?? []).find((field) => rec[field] === '');
  if (empty !== undefined) return { type: 'rejected', reason: `${kind}: required field ${SPEC_NAME[empty] ?? empty} is empty` };
  // Since 2026-07-28 a request has no session: its records are valid without one.
  const missing = firstMissing(rec, kind, isStatelessEra(rec.protocolVersion));
  if (missing !== undefined) {
    // Without a version it may still be a stateless request's, on a stream an earlier line named: the store knows.
    if (missing !== 'session' || rec.protocolVersion !== undefined || rec.stream === undefined) return { type: 'rejected', reason: missingField(kind, SPEC_NAME[missing] ?? missing) };
    const other = firstMissing(rec, kind, true);
    return { type: 'records', records: [rec], inherits: other === undefined ? {} : { otherwise: missingField(kind, SPEC_NAME[other] ?? other) } };
  }
  if (kind === 'http') return { type: 'records', records: [rec, ...inferFromHttp(rec, v[F.upstream] as string | undefined)] };
  return { type: 'records', records: [rec] };
}

/**
 * The first field the kind requires that the record lacks. Where `sessionless` (a stateless-era record, or one
 * of a stateless stream) neither its session nor an `event.sent`'s `event_id`: 2026-07-28 removed SSE event
 * ids with resumption (changelog #9), so such a server's events carry none.
 */
function firstMissing(rec: NormalizedRecord, kind: RecordKind, sessionless: boolean): keyof NormalizedRecord | undefined {
  const exempt = (field: keyof NormalizedRecord) => sessionless && (field === 'session' || (field === 'eventId' && kind === 'event.sent'));
  return (REQUIRED[kind] ?? []).find((field) => !exempt(field) && (rec[field] === undefined || rec[field] === null));
}

/** The value was read with the field's type (FIELDS): set only where there is one. */
function put(rec: NormalizedRecord, key: keyof NormalizedRecord, v: unknown): void {
  if (v !== undefined) (rec as unknown as Json)[key] = v;
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
