import type { NormalizedRecord } from '../model/record.js';
import type { Db } from './db.js';

// Maps a normalized record onto the `records` row. One column list, used by
// the insert statement and the parameter array alike, so they cannot drift.

const COLUMNS = [
  'source_id', 'line', 'ts_ms', 'kind', 'origin', 'seq', 'node', 'session', 'incarnation', 'stream', 'sequence',
  'conn', 'principal', 'req', 'via', 'reason', 'aspect', 'log_evicted', 'event_id', 'rpc_kind', 'rpc_id', 'method',
  'attached', 'of_stream', 'oldest_retained', 'last_event_id', 'new_stream', 'decision', 'status', 'replayed',
  'reemitted', 'cancelled', 'first_replayed', 'replayed_ids', 'new_session', 'reset_signalled', 'request_id',
  'new_request_id', 'tool', 'args_hash', 'executed', 'http_method', 'path', 'req_headers', 'resp_headers',
  'sse_event_ids', 'duration_ms', 'bytes', 'extra', 'raw',
] as const;

type Param = string | number | null;

const b = (v: boolean | undefined): Param => (v === undefined ? null : v ? 1 : 0);
const j = (v: unknown): Param => (v === undefined ? null : JSON.stringify(v));
const n = <T extends string | number>(v: T | null | undefined): Param => (v === undefined ? null : v);

function params(sourceId: number, line: number, r: NormalizedRecord, raw: string): Param[] {
  return [
    sourceId, line, r.tsMs, r.kind, r.origin, n(r.seq), n(r.node), n(r.session), n(r.incarnation), n(r.stream), n(r.sequence),
    n(r.conn), n(r.principal), n(r.req), n(r.via), n(r.reason), n(r.aspect), b(r.logEvicted), n(r.eventId), n(r.rpcKind),
    n(r.rpcId), n(r.method), b(r.attached), n(r.ofStream), n(r.oldestRetained), n(r.lastEventId), n(r.newStream),
    n(r.decision), n(r.status), n(r.replayed), n(r.reemitted), n(r.cancelled), n(r.firstReplayed), j(r.replayedIds),
    n(r.newSession), b(r.resetSignalled), n(r.requestId), n(r.newRequestId), n(r.tool), n(r.argsHash), b(r.executed),
    n(r.httpMethod), n(r.path), j(r.reqHeaders), j(r.respHeaders), j(r.sseEventIds), n(r.durationMs), n(r.bytes),
    j(r.extra), raw,
  ];
}

export interface RecordWriter {
  write(sourceId: number, line: number, r: NormalizedRecord, raw: string): void;
}

export function recordWriter(db: Db): RecordWriter {
  const stmt = db.prepare(`INSERT INTO records (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
  return { write: (sourceId, line, r, raw) => void stmt.run(params(sourceId, line, r, raw)) };
}
