import type { LineBytes, NormalizedRecord } from '../model/record.js';
import type { Db } from './db.js';

// Maps a normalized record onto the `records` row. One field → column table,
// used by the insert statements and their parameters alike, so they cannot drift.

type Param = string | number | null;
type Encode = (v: never) => Param;

const b = (v: boolean | undefined): Param => (v === undefined ? null : v ? 1 : 0);
const j = (v: unknown): Param => (v === undefined ? null : JSON.stringify(v));
const n = (v: string | number | null | undefined): Param => (v === undefined ? null : v);

const FIELDS: [keyof NormalizedRecord, string, Encode][] = [
  ['tsMs', 'ts_ms', n], ['kind', 'kind', n], ['origin', 'origin', n], ['seq', 'seq', n], ['node', 'node', n],
  ['session', 'session', n], ['incarnation', 'incarnation', n], ['stream', 'stream', n], ['sequence', 'sequence', n],
  ['conn', 'conn', n], ['principal', 'principal', n], ['req', 'req', n], ['via', 'via', n], ['reason', 'reason', n],
  ['aspect', 'aspect', n], ['logEvicted', 'log_evicted', b], ['eventId', 'event_id', n], ['rpcKind', 'rpc_kind', n],
  ['rpcId', 'rpc_id', n], ['method', 'method', n], ['attached', 'attached', b], ['ofStream', 'of_stream', n],
  ['oldestRetained', 'oldest_retained', n], ['lastEventId', 'last_event_id', n], ['newStream', 'new_stream', n],
  ['decision', 'decision', n], ['status', 'status', n], ['replayed', 'replayed', n], ['reemitted', 'reemitted', n],
  ['cancelled', 'cancelled', n], ['firstReplayed', 'first_replayed', n], ['replayedIds', 'replayed_ids', j],
  ['newSession', 'new_session', n], ['resetSignalled', 'reset_signalled', b], ['requestId', 'request_id', n],
  ['newRequestId', 'new_request_id', n], ['tool', 'tool', n], ['argsHash', 'args_hash', n], ['executed', 'executed', b],
  ['httpMethod', 'http_method', n], ['path', 'path', n], ['reqHeaders', 'req_headers', j], ['respHeaders', 'resp_headers', j],
  ['sseEventIds', 'sse_event_ids', j], ['durationMs', 'duration_ms', n], ['bytes', 'bytes', n], ['extra', 'extra', j],
  ['protocolVersion', 'protocol_version', n], ['retryMs', 'retry_ms', n], ['priming', 'priming', b],
];

const BY_FIELD = new Map(FIELDS.map(([field, column, encode]) => [field as string, { column, encode }]));

/** Beyond this many record shapes in one source, the rest go through the statement that binds every column. */
const MAX_SHAPES = 64;

export interface RecordWriter {
  /** `raw` null: the line is not copied, `at` says where it is in its file. */
  write(sourceId: number, line: number, r: NormalizedRecord, raw: string | null, at: LineBytes | undefined): void;
}

/**
 * Binding all ~50 columns of a record that sets a dozen cost more than the
 * insert itself. A record's own keys are the columns it sets (the normalizer
 * sets no field it has no value for), and one log has few record shapes: each
 * shape gets a statement that binds only its columns; the others stay NULL,
 * as the column default, exactly as binding them NULL would leave them.
 */
export function recordWriter(db: Db): RecordWriter {
  const byShape = new Map<string, { stmt: ReturnType<Db['prepare']>; encoders: Encode[]; fields: string[] }>();
  const prepare = (fields: string[]) => {
    const known = fields.filter((f) => BY_FIELD.has(f));
    const columns = known.map((f) => BY_FIELD.get(f)!.column);
    const stmt = db.prepare(
      `INSERT INTO records (source_id, line, ${columns.join(', ')}${columns.length ? ', ' : ''}raw, line_offset, line_bytes)
       VALUES (?, ?, ${'?, '.repeat(columns.length)}?, ?, ?)`,
    );
    return { stmt, encoders: known.map((f) => BY_FIELD.get(f)!.encode), fields: known };
  };
  const everyColumn = prepare(FIELDS.map(([f]) => f));
  return {
    write(sourceId, line, r, raw, at) {
      const keys = Object.keys(r);
      const shape = keys.join(',');
      let s = byShape.get(shape);
      if (s === undefined) {
        if (byShape.size < MAX_SHAPES) byShape.set(shape, (s = prepare(keys)));
        else s = everyColumn;
      }
      const params: Param[] = [sourceId, line];
      const rec = r as unknown as Record<string, never>;
      for (let i = 0; i < s.fields.length; i++) params.push(s.encoders[i]!(rec[s.fields[i]!]!));
      params.push(raw, at?.offset ?? null, at?.bytes ?? null);
      s.stmt.run(params);
    },
  };
}
