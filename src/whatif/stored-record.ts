import type { EngineRecord } from '../engine/index.js';
import type { Decision, Origin } from '../model/record.js';

// A stored record as the engine replay reads it: the row of `records`, turned
// into the engine's record (absent = undefined, never null) plus what the
// cross-check needs to describe the server's own answer.

export const STORED_RECORD_COLUMNS =
  'id, ts_ms, kind, origin, session, incarnation, node, stream, sequence, conn, principal, via, reason, aspect, log_evicted, ' +
  'event_id, rpc_kind, rpc_id, method, attached, oldest_retained, last_event_id, new_stream, decision, status, ' +
  'replayed, first_replayed, replayed_ids, new_session, reset_signalled, request_id, new_request_id';

/**
 * A row read with `.raw()` (values in STORED_RECORD_COLUMNS order) as a StoredRow:
 * better-sqlite3 builds row objects far slower than this literal does, which
 * matters when the replay reads every record of a 1M-line log.
 */
export function storedRowFromValues(v: unknown[]): StoredRow {
  return {
    id: v[0], ts_ms: v[1], kind: v[2], origin: v[3], session: v[4], incarnation: v[5], node: v[6], stream: v[7],
    sequence: v[8], conn: v[9], principal: v[10], via: v[11], reason: v[12], aspect: v[13], log_evicted: v[14],
    event_id: v[15], rpc_kind: v[16], rpc_id: v[17], method: v[18], attached: v[19], oldest_retained: v[20],
    last_event_id: v[21], new_stream: v[22], decision: v[23], status: v[24], replayed: v[25], first_replayed: v[26],
    replayed_ids: v[27], new_session: v[28], reset_signalled: v[29], request_id: v[30], new_request_id: v[31],
  } as StoredRow;
}

export interface StoredRow {
  id: number;
  ts_ms: number;
  kind: string;
  origin: Origin;
  session: string | null;
  incarnation: string | null;
  node: string | null;
  stream: string | null;
  sequence: string | null;
  conn: string | null;
  principal: string | null;
  via: string | null;
  reason: string | null;
  aspect: string | null;
  log_evicted: number | null;
  event_id: string | null;
  rpc_kind: string | null;
  rpc_id: string | null;
  method: string | null;
  attached: number | null;
  oldest_retained: string | null;
  last_event_id: string | null;
  new_stream: string | null;
  decision: string | null;
  status: number | null;
  replayed: number | null;
  first_replayed: string | null;
  replayed_ids: string | null;
  new_session: string | null;
  reset_signalled: number | null;
  request_id: string | null;
  new_request_id: string | null;
}

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
    record: toEngineRecord(r),
  };
}

export function isAccepted(u: LoggedUpgrade): boolean {
  return u.status === undefined ? u.decision !== 'reject' : u.status >= 200 && u.status < 300;
}
