// The logged trims (`buffer.trimmed`), kept so that "did a trim take this
// event?" reads a bound or two, not every trim: a server with a bounded buffer
// logs a trim every few events, and asking each of a long session's thousands
// of resumptions of every trim made the session's length squared.
//
// A trim takes an event (retention.ts) when it covers the event's lane (no
// stream: the whole session; a stream: that stream, and its lane, lanes.ts) and its oldest_retained was emitted after the event
// (where the id was never emitted: digit ids compared as numbers). "Any trim
// takes it" is therefore "the event lies below a bound": the latest position
// any covering trim's oldest id was emitted at, or the highest digit id among
// those not emitted yet. Data, as the rest of the state, and kept
// current as records come: asking reads it and never writes (decide is pure).

import { isDigits } from './columns.js';
import { laneName, laneRoot } from './lanes.js';
import type { EmittedEvent, Incarnation, StreamTrimBound, TrimBound, TrimIndex } from './types.js';

export function emptyTrimIndex(): TrimIndex {
  return { session: emptyBound(), byStream: new Map(), byLane: new Map(), unplaced: new Map() };
}

/** A `buffer.trimmed` of `stream` (undefined: the whole session) keeping `oldestRetained` and what came after it. */
export function noteTrim(inc: Incarnation, stream: string | undefined, oldestRetained: string): void {
  const index = inc.trimIndex;
  const bound = stream === undefined ? index.session : streamBound(inc, stream);
  const oldest = inc.events.get(oldestRetained);
  if (oldest !== undefined) {
    raise(inc, bound, oldest.pos);
    return;
  }
  const waiting = index.unplaced.get(oldestRetained);
  if (waiting === undefined) index.unplaced.set(oldestRetained, [bound]);
  else waiting.push(bound);
  if (isDigits(oldestRetained)) forBoundAndLane(inc, bound, (b) => addUnplaced(b, oldestRetained));
}

/** The first emission of an id: the trims waiting for it now take what was emitted before it. */
export function notePlaced(inc: Incarnation, event: EmittedEvent): void {
  const index = inc.trimIndex;
  const waiting = index.unplaced.get(event.id);
  if (waiting === undefined) return;
  index.unplaced.delete(event.id);
  const digits = isDigits(event.id);
  for (const bound of waiting) {
    raise(inc, bound, event.pos);
    if (digits) forBoundAndLane(inc, bound, (b) => removeUnplaced(b, event.id));
  }
}

/** Two lanes became one (lanes.ts): the trims of the lane that joined now cover the one it joined. */
export function noteLanesJoined(inc: Incarnation, joined: { from: string; to: string } | undefined): void {
  if (joined === undefined) return;
  const index = inc.trimIndex;
  const moved = index.byLane.get(joined.from);
  if (moved === undefined) return;
  index.byLane.delete(joined.from);
  for (const bound of moved.members) {
    bound.lane = joined.to;
    joinLane(inc, bound);
  }
}

/** Whether a logged trim took `event`. */
export function isTrimmed(inc: Incarnation, event: EmittedEvent): boolean {
  const index = inc.trimIndex;
  if (takes(index.session, event)) return true;
  const own = event.stream === undefined ? undefined : index.byStream.get(event.stream);
  if (own !== undefined && takes(own, event)) return true;
  const lane = index.byLane.get(laneRoot(inc, event.lane));
  return lane !== undefined && takes(lane.merged, event);
}

function takes(bound: TrimBound, event: EmittedEvent): boolean {
  if (event.pos < bound.beforePos) return true;
  if (bound.unplacedDigits.size === 0 || !isDigits(event.id)) return false;
  return bound.highestUnplaced !== undefined && BigInt(event.id) < bound.highestUnplaced;
}

function streamBound(inc: Incarnation, stream: string): StreamTrimBound {
  let bound = inc.trimIndex.byStream.get(stream);
  if (bound === undefined) {
    const known = inc.streams.get(stream);
    bound = { ...emptyBound(), lane: laneRoot(inc, known === undefined ? stream : laneName(known)) };
    inc.trimIndex.byStream.set(stream, bound);
    joinLane(inc, bound);
  }
  return bound;
}

function joinLane(inc: Incarnation, bound: StreamTrimBound): void {
  let lane = inc.trimIndex.byLane.get(bound.lane);
  if (lane === undefined) inc.trimIndex.byLane.set(bound.lane, (lane = { members: new Set(), merged: emptyBound() }));
  lane.members.add(bound);
  mergeInto(lane.merged, bound);
}

/** Applies a change to a bound and, for a stream's, to its lane's merged bound. */
function forBoundAndLane(inc: Incarnation, bound: TrimBound, change: (b: TrimBound) => void): void {
  change(bound);
  const lane = 'lane' in bound ? inc.trimIndex.byLane.get((bound as StreamTrimBound).lane)?.merged : undefined;
  if (lane !== undefined) change(lane);
}

function raise(inc: Incarnation, bound: TrimBound, pos: number): void {
  forBoundAndLane(inc, bound, (b) => (b.beforePos = Math.max(b.beforePos, pos)));
}

function addUnplaced(bound: TrimBound, id: string): void {
  bound.unplacedDigits.set(id, (bound.unplacedDigits.get(id) ?? 0) + 1);
  if (bound.highestUnplaced === undefined || BigInt(id) > bound.highestUnplaced) bound.highestUnplaced = BigInt(id);
}

function removeUnplaced(bound: TrimBound, id: string): void {
  const n = bound.unplacedDigits.get(id);
  if (n === undefined) return;
  if (n > 1) bound.unplacedDigits.set(id, n - 1);
  else {
    bound.unplacedDigits.delete(id);
    if (BigInt(id) === bound.highestUnplaced) bound.highestUnplaced = highestOf(bound.unplacedDigits.keys());
  }
}

function highestOf(digitIds: Iterable<string>): bigint | undefined {
  let high: bigint | undefined;
  for (const id of digitIds) if (high === undefined || BigInt(id) > high) high = BigInt(id);
  return high;
}

function merge(members: Iterable<TrimBound>): TrimBound {
  const merged = emptyBound();
  for (const m of members) mergeInto(merged, m);
  return merged;
}

function mergeInto(merged: TrimBound, m: TrimBound): void {
  merged.beforePos = Math.max(merged.beforePos, m.beforePos);
  for (const [id, n] of m.unplacedDigits) merged.unplacedDigits.set(id, (merged.unplacedDigits.get(id) ?? 0) + n);
  if (m.highestUnplaced !== undefined && (merged.highestUnplaced === undefined || m.highestUnplaced > merged.highestUnplaced)) {
    merged.highestUnplaced = m.highestUnplaced;
  }
}

function emptyBound(): TrimBound {
  return { beforePos: -1, unplacedDigits: new Map(), highestUnplaced: undefined };
}
