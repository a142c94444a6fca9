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

/** Every trim and log eviction, per session, in log order. */
export function loadBufferEvictions(db: Db, opts: DetectOptions): Map<string, BufferEviction[]> {
  const bySession = new Map<string, BufferEviction[]>();
  for (const r of eachQueryRow<Row>(db, 'facts/buffer-evictions', opts)) {
    const e: BufferEviction = {
      id: r.id,
      kind: r.kind,
      session: r.session,
      atMs: r.at_ms,
      stream: r.stream,
      streamLane: r.stream_lane,
      oldestRetained: r.oldest_retained === null ? null : String(r.oldest_retained),
      oldest:
        r.oldest_id === null ? null : { recordId: r.oldest_id, stream: '', lane: r.oldest_lane!, pos: r.oldest_pos!, tsMs: r.oldest_ts! },
      reason: r.reason,
    };
    const list = bySession.get(r.session) ?? [];
    list.push(e);
    bySession.set(r.session, list);
  }
  return bySession;
}

const before = (aMs: number, aId: number, bMs: number, bId: number) => aMs < bMs || (aMs === bMs && aId < bId);

/**
 * Why the reconnect's Last-Event-ID was no longer retained, first cause first;
 * empty when it was (or when the id was never placed, which other rules judge).
 */
export function retentionLosses(r: Reconnect, evictions: Map<string, BufferEviction[]>, retention: DetectOptions['retention']): RetentionLoss[] {
  const last = r.last.own;
  if (last === null || r.window === null) return [];
  const between = (e: BufferEviction) => before(last.tsMs, last.recordId, e.atMs, e.id) && before(e.atMs, e.id, r.atMs, r.upgradeId);
  const candidates = (evictions.get(r.session) ?? []).filter(between);
  const losses: RetentionLoss[] = [];
  if (retention === 'as-logged') {
    const trim = candidates.find((e) => e.kind === 'buffer.trimmed' && trimsPast(e, last, r.last.eventId));
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
export function unplacedTrim(r: Reconnect, evictions: Map<string, BufferEviction[]>): BufferEviction | undefined {
  const id = r.last.eventId;
  if (r.last.own !== null || !isDigits(id)) return undefined;
  return (evictions.get(r.session) ?? []).find(
    (e) =>
      e.kind === 'buffer.trimmed' && before(e.atMs, e.id, r.atMs, r.upgradeId) && (e.stream === null || e.stream === r.stream) &&
      e.oldestRetained !== null && isDigits(e.oldestRetained) && compareNumeric(e.oldestRetained, id) > 0,
  );
}

/** The first eviction that dropped the session's event log after an event was sent (record `sentId` at `sentMs`) and before the reconnect. */
export function logDroppedBetween(r: Reconnect, sentMs: number, sentId: number, evictions: Map<string, BufferEviction[]>): BufferEviction | undefined {
  return (evictions.get(r.session) ?? []).find(
    (e) => e.kind === 'session.evicted' && before(sentMs, sentId, e.atMs, e.id) && before(e.atMs, e.id, r.atMs, r.upgradeId),
  );
}

/** Does this trim's oldest_retained lie later than the event, on the event's lane (or session-wide)? */
function trimsPast(trim: BufferEviction, last: Emission, lastEventId: string): boolean {
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
