import type { Statement } from 'better-sqlite3';
import type { Db } from '../../store/db.js';
import { loadQuery, queryParts } from '../../store/queries.js';
import { buildStages, dropStages, queryParams } from '../query-rows.js';
import type { DetectOptions } from '../types.js';
import { compareIds, compareNumeric, isDigits, type Emission } from '../../model/event-order.js';
import type { Reconnect } from './reconnects.js';

// Is a Last-Event-ID still retained when the reconnect arrives (rules.md
// "retained")? As logged: not once a buffer.trimmed names an oldest_retained
// later than it, or the session's log was evicted. Under a what-if retention
// the buffer's own trims are replaced by age and count limits; the eviction of
// a whole session log still counts.

export interface BufferEviction {
  id: number;
  kind: 'buffer.trimmed' | 'session.evicted';
  session: string;
  atMs: number;
  stream: string | null;
  streamLane: string | null;
  oldestRetained: string | null;
  oldest: Emission | null;
  reason: string | null;
}

export type RetentionLoss =
  | { cause: 'trimmed'; by: BufferEviction }
  | { cause: 'log-evicted'; by: BufferEviction }
  | { cause: 'max-age'; ageMs: number; limitMs: number }
  | { cause: 'max-events'; later: number; limit: number; headId: number | null };

interface Row {
  id: number;
  kind: 'buffer.trimmed' | 'session.evicted';
  session: string;
  at_ms: number;
  stream: string | null;
  stream_lane: string | null;
  oldest_retained: string | null;
  oldest_id: number | null;
  oldest_lane: string | null;
  oldest_pos: number | null;
  oldest_ts: number | null;
  reason: string | null;
}

/**
 * The log's trims and log evictions, looked up where a reconnect needs them. They are set apart in a TEMP table,
 * indexed by what they cover (the whole session, one lane, one stream) and in log order, so that a reconnect reads the
 * few between its Last-Event-ID and itself: a server with a bounded buffer logs a trim every few events, and a long
 * session's thousands of reconnects each reading every trim made the session's length squared. Held in memory, a
 * log's trims cost it 600 bytes each (209k trims: 125 MB); SQLite holds them on its page budget.
 */
export class Evictions {
  private static made = 0;
  private readonly table: string;
  private readonly withAny: ReadonlySet<string>;
  private readonly sessionWideBetween: Statement;
  private readonly laneBetween: Statement;
  private readonly above: Statement;
  private readonly logDrop: Statement;
  private dropped = false;

  /** The log's evictions (queries/facts/buffer-evictions.sql). Made at once: a TEMP table cannot be written while a rule reads. */
  static of(db: Db, opts: DetectOptions): Evictions {
    const parts = queryParts(loadQuery('facts/buffer-evictions'));
    try {
      buildStages(db, parts, opts);
      return new Evictions(db, parts.select, queryParams(parts.select, opts));
    } finally {
      dropStages(db, parts);
    }
  }

  /**
   * `source` selects rows of the query's columns (Row) in log order. Each row also keeps the highest digit
   * oldest_retained of its stream's trims so far (its session's, for a trim of the whole session), as a key that
   * orders as compareNumeric does: the never-placed fallback's first trim above an id is one index probe.
   */
  constructor(
    private readonly db: Db,
    source: string,
    params: Record<string, unknown> = {},
  ) {
    this.table = `temp.evictions_${++Evictions.made}`;
    // Untyped columns: an oldest_retained '007' stays '007'.
    db.exec(`CREATE TABLE ${this.table} (${COLUMNS.join(', ')}, highest)`);
    db.prepare(
      `INSERT INTO ${this.table} SELECT ${COLUMNS.join(', ')},
         max(${digitsKeySql('oldest_retained')}) OVER (PARTITION BY session, stream ORDER BY at_ms, id)
       FROM (${source})`,
    ).run(params);
    const index = (name: string, columns: string) => db.exec(`CREATE INDEX ${this.table}_${name} ON ${this.table.slice('temp.'.length)} (${columns})`);
    index('stream', 'session, stream, at_ms, id');
    index('lane', 'session, stream_lane, at_ms, id');
    index('highest', 'session, stream, highest, at_ms, id');
    this.withAny = new Set(db.prepare(`SELECT DISTINCT session FROM ${this.table}`).pluck().all() as string[]);
    const select = `SELECT ${COLUMNS.join(', ')} FROM ${this.table}`;
    const between = '(at_ms, id) > (@afterMs, @afterId) AND (at_ms, id) < (@beforeMs, @beforeId) ORDER BY at_ms, id';
    this.sessionWideBetween = db.prepare(`${select} WHERE session = @session AND stream IS NULL AND kind = 'buffer.trimmed' AND ${between}`);
    this.laneBetween = db.prepare(`${select} WHERE session = @session AND stream_lane = @lane AND stream IS NOT NULL AND ${between}`);
    this.above = db.prepare(
      `${select} WHERE session = @session AND stream IS @stream AND kind = 'buffer.trimmed' AND highest > @key
         AND (at_ms, id) < (@beforeMs, @beforeId) ORDER BY highest, at_ms, id LIMIT 1`,
    );
    this.logDrop = db.prepare(`${select} WHERE session = @session AND stream IS NULL AND kind = 'session.evicted' AND ${between} LIMIT 1`);
  }

  /** The first trim of the whole session (lane undefined) or of one lane, logged strictly between the two points, for which `test` holds. */
  firstTrimBetween(session: string, lane: string | undefined, after: LogPoint, before: LogPoint, test: (e: BufferEviction) => boolean): BufferEviction | undefined {
    if (!this.has(session)) return undefined;
    const rows = lane === undefined
      ? this.sessionWideBetween.iterate({ session, ...range(after, before) })
      : this.laneBetween.iterate({ session, lane, ...range(after, before) });
    for (const row of rows as IterableIterator<Row>) {
      const e = toEviction(row);
      if (test(e)) return e;
    }
    return undefined;
  }

  /** The first trim of the whole session (stream null) or of one stream, logged before `before`, whose digit oldest_retained is numerically above `id` (digits). */
  firstTrimAbove(session: string, stream: string | null, id: string, before: LogPoint): BufferEviction | undefined {
    if (!this.has(session)) return undefined;
    const row = this.above.get({ session, stream, key: digitsKey(id), beforeMs: before.ms, beforeId: before.id }) as Row | undefined;
    return row === undefined ? undefined : toEviction(row);
  }

  /** The first eviction that dropped the session's event log strictly between the two points. */
  firstLogDropBetween(session: string, after: LogPoint, before: LogPoint): BufferEviction | undefined {
    if (!this.has(session)) return undefined;
    const row = this.logDrop.get({ session, ...range(after, before) }) as Row | undefined;
    return row === undefined ? undefined : toEviction(row);
  }

  /** Lets the table go (ReconnectFacts.release). */
  drop(): void {
    if (this.dropped) return;
    this.dropped = true;
    this.db.exec(`DROP TABLE IF EXISTS ${this.table}`);
  }

  private has(session: string): boolean {
    if (this.dropped) throw new Error(`${this.table} was read after it was dropped`);
    return this.withAny.has(session);
  }
}

/** A point in log order: a record's time and id. */
export interface LogPoint {
  ms: number;
  id: number;
}

const COLUMNS = ['id', 'kind', 'session', 'at_ms', 'stream', 'stream_lane', 'oldest_retained', 'oldest_id', 'oldest_lane', 'oldest_pos', 'oldest_ts', 'reason'];

function range(after: LogPoint, before: LogPoint) {
  return { afterMs: after.ms, afterId: after.id, beforeMs: before.ms, beforeId: before.id };
}

function toEviction(r: Row): BufferEviction {
  return {
    id: r.id,
    kind: r.kind,
    session: r.session,
    atMs: r.at_ms,
    stream: r.stream,
    streamLane: r.stream_lane,
    oldestRetained: r.oldest_retained === null ? null : String(r.oldest_retained),
    oldest: r.oldest_id === null ? null : { recordId: r.oldest_id, stream: '', lane: r.oldest_lane!, pos: r.oldest_pos!, tsMs: r.oldest_ts! },
    reason: r.reason,
  };
}

/**
 * A digit id as a string that orders as compareNumeric orders the ids: its length without leading zeros, padded,
 * then those digits.
 */
export function digitsKey(id: string): string {
  const digits = id.replace(/^0+(?=.)/, '');
  return `${String(digits.length).padStart(10, '0')}${digits}`;
}

/** digitsKey in SQL, of a column (NULL where it is not digits, as isDigits says). */
function digitsKeySql(column: string): string {
  const digits = `coalesce(nullif(ltrim(${column}, '0'), ''), '0')`;
  return `CASE WHEN ${column} <> '' AND ${column} NOT GLOB '*[^0-9]*' THEN printf('%010d', length(${digits})) || ${digits} END`;
}

const before = (aMs: number, aId: number, bMs: number, bId: number) => aMs < bMs || (aMs === bMs && aId < bId);

/**
 * Why the reconnect's Last-Event-ID was no longer retained, first cause first;
 * empty when it was (or when the id was never placed, which other rules judge).
 */
export function retentionLosses(r: Reconnect, evictions: Evictions, retention: DetectOptions['retention']): RetentionLoss[] {
  const last = r.last.own;
  if (last === null || r.window === null) return [];
  const losses: RetentionLoss[] = [];
  if (retention === 'as-logged') {
    // Only a session-wide trim or one of the Last-Event-ID's lane can take it (trimsPast): the first of either.
    const first = (lane: string | undefined) =>
      evictions.firstTrimBetween(r.session, lane, { ms: last.tsMs, id: last.recordId }, { ms: r.atMs, id: r.upgradeId }, (e) => trimsPast(e, last, r.last.eventId));
    const trim = earlier(first(undefined), first(last.lane));
    if (trim) losses.push({ cause: 'trimmed', by: trim });
  }
  const logEviction = logDroppedBetween(r, last.tsMs, last.recordId, evictions);
  if (logEviction) losses.push({ cause: 'log-evicted', by: logEviction });
  if (retention !== 'as-logged') {
    const ageMs = r.atMs - last.tsMs;
    if (retention.maxAgeMs !== undefined && ageMs > retention.maxAgeMs) losses.push({ cause: 'max-age', ageMs, limitMs: retention.maxAgeMs });
    const later = r.window.afterCount;
    if (retention.maxEvents !== undefined && later >= retention.maxEvents) {
      losses.push({ cause: 'max-events', later, limit: retention.maxEvents, headId: r.window.headId });
    }
  }
  return losses;
}

/**
 * A trim before the reconnect that evicted a Last-Event-ID the log never shows sent (it starts
 * after the session was created): log-format.md falls back to comparing digit ids numerically,
 * on the resumed stream's trims or session-wide ones.
 */
export function unplacedTrim(r: Reconnect, evictions: Evictions): BufferEviction | undefined {
  const id = r.last.eventId;
  if (r.last.own !== null || !isDigits(id)) return undefined;
  const above = (stream: string | null) => evictions.firstTrimAbove(r.session, stream, id, { ms: r.atMs, id: r.upgradeId });
  return earlier(above(null), r.stream === null ? undefined : above(r.stream));
}

/** Of two evictions, the one logged first. */
function earlier(a: BufferEviction | undefined, b: BufferEviction | undefined): BufferEviction | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return before(b.atMs, b.id, a.atMs, a.id) ? b : a;
}

/** The first eviction that dropped the session's event log after an event was sent (record `sentId` at `sentMs`) and before the reconnect. */
export function logDroppedBetween(r: Reconnect, sentMs: number, sentId: number, evictions: Evictions): BufferEviction | undefined {
  return evictions.firstLogDropBetween(r.session, { ms: sentMs, id: sentId }, { ms: r.atMs, id: r.upgradeId });
}

/** Does this trim's oldest_retained lie later than the event, on the event's lane (or session-wide)? */
export function trimsPast(trim: BufferEviction, last: Emission, lastEventId: string): boolean {
  if (trim.oldestRetained === null) return false;
  if (trim.stream !== null && trim.streamLane !== last.lane) return false;
  const oldest = trim.oldest;
  // A session-wide trim orders the session's events by when they were sent.
  if (trim.stream === null && oldest !== null && oldest.lane !== last.lane) {
    return before(last.tsMs, last.recordId, oldest.tsMs, oldest.recordId);
  }
  const order = compareIds({ eventId: trim.oldestRetained, own: oldest }, { eventId: lastEventId, own: last });
  if (order !== undefined) return order > 0;
  // A stream's trim naming an id sent on another lane has no emission order to go by: the ids themselves decide.
  return isDigits(trim.oldestRetained) && isDigits(lastEventId) && compareNumeric(trim.oldestRetained, lastEventId) > 0;
}
