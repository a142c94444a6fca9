import type { EngineRecord } from '../engine/index.js';
import type { Decision, Origin, RecordRow } from '../model/record.js';
import { sparseColumnsJson } from '../store/sparse-columns.js';

// A stored record as the engine replay reads it: the row of `records`, turned
// into the engine's record (absent = undefined, never null) plus what the
// cross-check needs to describe the server's own answer.

/** Columns most records set, read one by one. */
const DENSE_COLUMNS = [
  'id', 'ts_ms', 'kind', 'origin', 'session', 'node', 'stream', 'conn', 'via', 'event_id', 'rpc_kind', 'rpc_id', 'method', 'status', 'request_id', 'protocol_version',
] as const;
/** Columns few records set (upgrades, creations): one JSON array, and NULL where none is set. */
const SPARSE_COLUMNS = [
  'incarnation', 'sequence', 'principal', 'reason', 'aspect', 'log_evicted', 'attached', 'oldest_retained', 'last_event_id',
  'new_stream', 'decision', 'replayed', 'first_replayed', 'replayed_ids', 'new_session', 'reset_signalled', 'new_request_id', 'tool', 'executed', 'priming',
  'http_method',
] as const;

/**
 * One record as one JSON array, as storedRow reads it: the dense columns, then the sparse ones in a
 * nested array, or null where none is set. Every value better-sqlite3 hands to JS costs about the
 * same, NULL or not, and each row it steps to about as much again; the replay reads every server
 * record of the log, so it takes them a session at a time (json_group_array of these).
 */
export const STORED_RECORD_JSON = `json_array(${DENSE_COLUMNS.join(', ')}, ${sparseColumnsJson(SPARSE_COLUMNS)})`;

/** A parsed STORED_RECORD_JSON as a StoredRow (a JS literal: better-sqlite3's row objects cost far more). */
export function storedRow(v: unknown[]): StoredRow {
  const x = (v[16] as unknown[] | null) ?? NO_SPARSE_VALUES;
  // One literal, in the lists' order: every row then shares a single object shape.
  return {
    id: v[0], ts_ms: v[1], kind: v[2], origin: v[3], session: v[4], node: v[5], stream: v[6], conn: v[7], via: v[8],
    event_id: v[9], rpc_kind: v[10], rpc_id: v[11], method: v[12], status: v[13], request_id: v[14], protocol_version: v[15],
    incarnation: x[0], sequence: x[1], principal: x[2], reason: x[3], aspect: x[4], log_evicted: x[5], attached: x[6],
    oldest_retained: x[7], last_event_id: x[8], new_stream: x[9], decision: x[10], replayed: x[11], first_replayed: x[12],
    replayed_ids: x[13], new_session: x[14], reset_signalled: x[15], new_request_id: x[16], tool: x[17], executed: x[18], priming: x[19],
    http_method: x[20],
  } as StoredRow;
}

const NO_SPARSE_VALUES: readonly unknown[] = SPARSE_COLUMNS.map(() => null);

/** The columns the engine replay selects (STORED_COLUMNS). */
export type StoredRow = Pick<
  RecordRow,
  | 'id' | 'ts_ms' | 'kind' | 'origin' | 'session' | 'incarnation' | 'node' | 'stream' | 'sequence' | 'conn' | 'principal' | 'via' | 'reason' | 'aspect'
  | 'log_evicted' | 'event_id' | 'rpc_kind' | 'rpc_id' | 'method' | 'attached' | 'oldest_retained' | 'last_event_id' | 'new_stream' | 'decision'
  | 'status' | 'replayed' | 'first_replayed' | 'replayed_ids' | 'new_session' | 'reset_signalled' | 'request_id' | 'new_request_id'
  | 'protocol_version' | 'tool' | 'executed' | 'priming' | 'http_method'
>;

/** A logged `upgrade`: the server's answer to one reconnect (or initialize). */
export interface LoggedUpgrade {
  id: number;
  tsMs: number;
  origin: Origin;
  session: string | null;
  node?: string;
  lastEventId: string | null;
  decision?: Decision;
  status?: number;
  reason?: string;
  /** Absent counters are unknown, not zero. */
  replayed?: number;
  firstReplayed?: string;
  replayedIds?: string[];
  newSession?: string;
  resetSignalled?: boolean;
  /** The HTTP method, where the log says it (a proxy's line does). */
  httpMethod?: string;
  record: EngineRecord;
}

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);
const flag = (v: number | null): boolean | undefined => (v === null ? undefined : v === 1);

export function toEngineRecord(r: StoredRow): EngineRecord {
  return {
    kind: r.kind,
    tsMs: r.ts_ms,
    session: r.session,
    incarnation: opt(r.incarnation),
    node: opt(r.node),
    stream: opt(r.stream),
    sequence: opt(r.sequence),
    conn: opt(r.conn),
    principal: opt(r.principal),
    via: opt(r.via),
    aspect: opt(r.aspect),
    logEvicted: flag(r.log_evicted),
    eventId: opt(r.event_id),
    rpcKind: opt(r.rpc_kind),
    rpcId: opt(r.rpc_id),
    method: opt(r.method),
    attached: flag(r.attached),
    oldestRetained: opt(r.oldest_retained),
    lastEventId: r.last_event_id,
    newStream: opt(r.new_stream),
    decision: opt(r.decision),
    status: opt(r.status),
    requestId: opt(r.request_id),
    newRequestId: opt(r.new_request_id),
    protocolVersion: opt(r.protocol_version),
    reason: opt(r.reason),
    tool: opt(r.tool),
    executed: flag(r.executed),
    priming: flag(r.priming),
  };
}

export function toLoggedUpgrade(r: StoredRow): LoggedUpgrade {
  return {
    id: r.id,
    tsMs: r.ts_ms,
    origin: r.origin,
    session: r.session === '' ? null : r.session,
    node: opt(r.node),
    lastEventId: r.last_event_id === '' ? null : r.last_event_id,
    decision: opt(r.decision) as Decision | undefined,
    status: opt(r.status),
    reason: opt(r.reason),
    replayed: opt(r.replayed),
    firstReplayed: opt(r.first_replayed),
    replayedIds: r.replayed_ids === null ? undefined : (JSON.parse(r.replayed_ids) as unknown[]).map(String),
    newSession: opt(r.new_session),
    resetSignalled: flag(r.reset_signalled),
    httpMethod: opt(r.http_method),
    record: toEngineRecord(r),
  };
}

export function isAccepted(u: LoggedUpgrade): boolean {
  return u.status === undefined ? u.decision !== 'reject' : u.status >= 200 && u.status < 300;
}
