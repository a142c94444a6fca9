import type { Db } from '../../store/db.js';
import { eachQueryRow } from '../query-rows.js';
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
 * One session's trims and log evictions, each in log order. The trims are kept by what they cover (the
 * whole session, or one lane), so that a reconnect reads the few between its Last-Event-ID and itself on
 * its own lane: a server with a bounded buffer logs a trim every few events, and a long session's
 * thousands of reconnects each reading every trim made the session's length squared.
 */
export class SessionEvictions {
  readonly sessionWide: TrimList = new TrimList();
  readonly byLane = new Map<string, TrimList>();
  /** Per trimmed stream: the numeric compare a never-placed Last-Event-ID falls back to reads the stream's trims. */
  readonly byStream = new Map<string, TrimList>();
  readonly logDrops: BufferEviction[] = [];

  add(e: BufferEviction): void {
    if (e.kind === 'session.evicted') {
      this.logDrops.push(e);
      return;
    }
    if (e.stream === null) {
      this.sessionWide.push(e);
      return;
    }
    pushTo(this.byStream, e.stream, e);
    if (e.streamLane !== null) pushTo(this.byLane, e.streamLane, e);
  }
}

/** Trims in log order, with the highest digit oldest_retained so far at each. */
class TrimList {
  readonly trims: BufferEviction[];
  /** highestDigits[i]: the highest digit oldest_retained of trims[0..i] (null: none yet). */
  private readonly highestDigits: (string | null)[];

  /**
   * Made with its first trim or none: an array's first push reserves 17 places, and a server that trims each stream
   * once (a new stream every round) made as many lists of one trim (209k trims: 111 MB, 85 MB made so).
   */
  constructor(first?: BufferEviction) {
    this.trims = first === undefined ? [] : [first];
    this.highestDigits = first === undefined ? [] : [digitsOf(first)];
  }

  push(e: BufferEviction): void {
    const prior = this.highestDigits.length > 0 ? this.highestDigits[this.highestDigits.length - 1]! : null;
    const own = digitsOf(e);
    this.highestDigits.push(own !== null && (prior === null || compareNumeric(own, prior) > 0) ? own : prior);
    this.trims.push(e);
  }

  /** The first trim, logged after (afterMs, afterId) and before (beforeMs, beforeId), for which `test` holds. */
  firstBetween(afterMs: number, afterId: number, beforeMs: number, beforeId: number, test: (e: BufferEviction) => boolean): BufferEviction | undefined {
    const end = this.countBefore(beforeMs, beforeId);
    for (let i = this.countBefore(afterMs, afterId + 0.5); i < end; i++) if (test(this.trims[i]!)) return this.trims[i];
    return undefined;
  }

  /** The first trim before (beforeMs, beforeId) whose digit oldest_retained is numerically above `id`. */
  firstAbove(id: string, beforeMs: number, beforeId: number): BufferEviction | undefined {
    const end = this.countBefore(beforeMs, beforeId);
    // highestDigits only grows: the first index where it exceeds `id` is that trim.
    let lo = 0;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const h = this.highestDigits[mid]!;
      if (h !== null && compareNumeric(h, id) > 0) hi = mid;
      else lo = mid + 1;
    }
    return lo < end ? this.trims[lo] : undefined;
  }

  /** How many trims come before (ms, id) in log order. */
  private countBefore(ms: number, id: number): number {
    let lo = 0;
    let hi = this.trims.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const t = this.trims[mid]!;
      if (before(t.atMs, t.id, ms, id)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function pushTo(map: Map<string, TrimList>, key: string, e: BufferEviction): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, new TrimList(e));
  else list.push(e);
}

function digitsOf(e: BufferEviction): string | null {
  return e.oldestRetained !== null && isDigits(e.oldestRetained) ? e.oldestRetained : null;
}

/**
 * Every trim and log eviction, per session, in log order. Each row's strings come from SQLite as new copies: the
 * session, stream and lane names are kept once each (a server trimming every round: 209k trims took 125 MB, 600
 * bytes each; 111 MB so).
 */
export function loadBufferEvictions(db: Db, opts: DetectOptions): Map<string, SessionEvictions> {
  const bySession = new Map<string, SessionEvictions>();
  const names = new Map<string, string>();
  const name = (s: string | null) => {
    if (s === null) return null;
    const known = names.get(s);
    if (known !== undefined) return known;
    names.set(s, s);
    return s;
  };
  for (const r of eachQueryRow<Row>(db, 'facts/buffer-evictions', opts)) {
    let session = bySession.get(r.session);
    if (session === undefined) bySession.set(r.session, (session = new SessionEvictions()));
    const stream = name(r.stream);
    session.add({
      id: r.id,
      kind: r.kind,
      session: name(r.session)!,
      atMs: r.at_ms,
      stream,
      streamLane: r.stream_lane === r.stream ? stream : name(r.stream_lane),
      oldestRetained: r.oldest_retained === null ? null : String(r.oldest_retained),
      oldest:
        r.oldest_id === null ? null : { recordId: r.oldest_id, stream: '', lane: name(r.oldest_lane)!, pos: r.oldest_pos!, tsMs: r.oldest_ts! },
      reason: r.reason,
    });
  }
  return bySession;
}

const before = (aMs: number, aId: number, bMs: number, bId: number) => aMs < bMs || (aMs === bMs && aId < bId);

/**
 * Why the reconnect's Last-Event-ID was no longer retained, first cause first;
 * empty when it was (or when the id was never placed, which other rules judge).
 */
export function retentionLosses(r: Reconnect, evictions: Map<string, SessionEvictions>, retention: DetectOptions['retention']): RetentionLoss[] {
  const last = r.last.own;
  if (last === null || r.window === null) return [];
  const losses: RetentionLoss[] = [];
  const session = evictions.get(r.session);
  if (retention === 'as-logged' && session !== undefined) {
    // Only a session-wide trim or one of the Last-Event-ID's lane can take it (trimsPast): the first of either.
    const first = (list: TrimList | undefined) =>
      list?.firstBetween(last.tsMs, last.recordId, r.atMs, r.upgradeId, (e) => trimsPast(e, last, r.last.eventId));
    const trim = earlier(first(session.sessionWide), first(session.byLane.get(last.lane)));
    if (trim) losses.push({ cause: 'trimmed', by: trim });
  }
  const logEviction = logDroppedBetween(r, last.tsMs, last.recordId, evictions);
  if (logEviction) losses.push({ cause: 'log-evicted', by: logEviction });
  if (retention !== 'as-logged') {
    const ageMs = r.atMs - last.tsMs;
    if (retention.maxAgeMs !== undefined && ageMs > retention.maxAgeMs) losses.push({ cause: 'max-age', ageMs, limitMs: retention.maxAgeMs });
    const later = r.window.afterCount;
    if (retention.maxEvents !== undefined && later > retention.maxEvents) {
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
export function unplacedTrim(r: Reconnect, evictions: Map<string, SessionEvictions>): BufferEviction | undefined {
  const id = r.last.eventId;
  if (r.last.own !== null || !isDigits(id)) return undefined;
  const session = evictions.get(r.session);
  if (session === undefined) return undefined;
  const above = (list: TrimList | undefined) => list?.firstAbove(id, r.atMs, r.upgradeId);
  return earlier(above(session.sessionWide), r.stream === null ? undefined : above(session.byStream.get(r.stream)));
}

/** Of two evictions, the one logged first. */
function earlier(a: BufferEviction | undefined, b: BufferEviction | undefined): BufferEviction | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return before(b.atMs, b.id, a.atMs, a.id) ? b : a;
}

/** The first eviction that dropped the session's event log after an event was sent (record `sentId` at `sentMs`) and before the reconnect. */
export function logDroppedBetween(r: Reconnect, sentMs: number, sentId: number, evictions: Map<string, SessionEvictions>): BufferEviction | undefined {
  return evictions.get(r.session)?.logDrops.find((e) => before(sentMs, sentId, e.atMs, e.id) && before(e.atMs, e.id, r.atMs, r.upgradeId));
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
