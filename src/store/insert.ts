import type { LineBytes, NormalizedRecord } from '../model/record.js';
import type { Db } from './db.js';

// Maps a normalized record onto the `records` row. One field → column table,
// used by the insert statements and their parameters alike, so they cannot drift.

export type Param = string | number | null;
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

/** Each record column as the log gave it back: JSON columns parsed, flags as booleans (the inverse of FIELDS' encodings). */
export const RECORD_COLUMNS: readonly { column: string; decode: (v: Param) => unknown }[] = FIELDS.map(([, column, encode]) => ({
  column,
  decode: encode === j ? (v: Param) => JSON.parse(String(v)) : encode === b ? (v: Param) => v === 1 : (v: Param) => v,
}));

/** Beyond this many record shapes in one source, the rest go through the statement that binds every column. */
const MAX_SHAPES = 64;

/**
 * Binding all ~50 columns of a record that sets a dozen cost more than the
 * insert itself. A record's own keys are the columns it sets (the normalizer
 * sets no field it has no value for), and one log has few record shapes: each
 * shape gets a statement that binds only its columns; the others stay NULL,
 * as the column default, exactly as binding them NULL would leave them.
 *
 * A record becomes cells, in a flat array that crosses from the worker thread
 * as it is (a structured clone of objects cost as much as normalizing them):
 * its shape's number, the part of its time below the millisecond (orders ties,
 * not stored), then its statement's parameters: source id (set by the store),
 * line, the shape's column values encoded, raw, line offset, line bytes.
 */
export class RowEncoder {
  /** Shapes by their keys in order, one key per step: no key list nor joined string per record. */
  private readonly root: ShapeNode = { next: new Map(), id: -1 };
  private readonly shapes: { fields: string[]; encoders: Encode[] }[] = [];
  private readonly keys: string[][] = [];
  private told = 0;

  /** Appends one record's cells to `out`. */
  encode(rec: NormalizedRecord, line: number, raw: string | null, at: LineBytes | undefined, out: Param[]): void {
    let node = this.root;
    for (const k in rec) {
      let next = node.next.get(k);
      if (next === undefined) node.next.set(k, (next = { next: new Map(), id: -1 }));
      node = next;
    }
    if (node.id < 0) node.id = this.number(Object.keys(rec));
    const s = this.shapes[node.id]!;
    out.push(node.id, rec.tsSubMs ?? null, 0, line);
    const r = rec as unknown as Record<string, never>;
    for (let i = 0; i < s.fields.length; i++) out.push(s.encoders[i]!(r[s.fields[i]!]!));
    out.push(raw, at?.offset ?? null, at?.bytes ?? null);
  }

  private number(keys: string[]): number {
    const fields = keys.filter((f) => BY_FIELD.has(f));
    this.shapes.push({ fields, encoders: fields.map((f) => BY_FIELD.get(f)!.encode) });
    this.keys.push(keys);
    return this.keys.length - 1;
  }

  /** The keys of the shapes numbered since the last call: the store learns each shape once. */
  newShapes(): string[][] {
    const out = this.keys.slice(this.told);
    this.told = this.keys.length;
    return out;
  }
}

interface ShapeNode {
  next: Map<string, ShapeNode>;
  id: number;
}

/** Where a record's cells start its shape's number; its statement's parameters start at PARAMS. */
export const SUB_MS = 1;
export const PARAMS = 2;

/** What the store reads of a shape's parameters: where ordering and dirty-marking fields sit (-1: the shape has none). */
export interface RowShape {
  stmt: ReturnType<Db['prepare']>;
  /** Parameters of one record, from source id to line bytes. */
  width: number;
  tsMs: number;
  seq: number;
  node: number;
  session: number;
  newSession: number;
  kind: number;
  origin: number;
  stream: number;
  protocolVersion: number;
  /** A shape past MAX_SHAPES: its parameters spread over the statement that binds every column. */
  spread?: (params: Param[]) => Param[];
}

export interface RecordWriter {
  /** The statement and layout of records with these keys. */
  shape(keys: string[]): RowShape;
  /** Writes one record's parameters (source id first, which this sets), as laid out by its shape; returns its id. */
  write(shape: RowShape, params: Param[]): number;
}

export function recordWriter(db: Db, sourceId: number): RecordWriter {
  const byShape = new Map<string, RowShape>();
  const prepare = (fields: string[]) => {
    const columns = fields.map((f) => BY_FIELD.get(f)!.column);
    return db.prepare(
      `INSERT INTO records (source_id, line, ${columns.join(', ')}${columns.length ? ', ' : ''}raw, line_offset, line_bytes)
       VALUES (?, ?, ${'?, '.repeat(columns.length)}?, ?, ?)`,
    );
  };
  const all = FIELDS.map(([f]) => f as string);
  let everyColumn: ReturnType<Db['prepare']> | undefined;
  return {
    shape(keys) {
      const key = keys.join(',');
      let s = byShape.get(key);
      if (s !== undefined) return s;
      const fields = keys.filter((f) => BY_FIELD.has(f));
      const at = (f: string) => (fields.includes(f) ? 2 + fields.indexOf(f) : -1);
      const layout = { width: fields.length + 5, tsMs: at('tsMs'), seq: at('seq'), node: at('node'), session: at('session'), newSession: at('newSession'),
        kind: at('kind'), origin: at('origin'), stream: at('stream'), protocolVersion: at('protocolVersion') };
      if (byShape.size < MAX_SHAPES) s = { stmt: prepare(fields), ...layout };
      else {
        const slots = fields.map((f) => 2 + all.indexOf(f));
        s = { stmt: (everyColumn ??= prepare(all)), ...layout, spread: (p) => spreadOver(p, slots, all.length) };
      }
      byShape.set(key, s);
      return s;
    },
    write(shape, params) {
      params[0] = sourceId;
      return Number(shape.stmt.run(shape.spread ? shape.spread(params) : params).lastInsertRowid);
    },
  };
}

function spreadOver(params: Param[], slots: number[], columns: number): Param[] {
  const out: Param[] = new Array<Param>(columns + 5).fill(null);
  out[0] = params[0]!;
  out[1] = params[1]!;
  slots.forEach((slot, i) => (out[slot] = params[2 + i]!));
  for (let i = 1; i <= 3; i++) out[columns + 1 + i] = params[params.length - 4 + i]!;
  return out;
}
