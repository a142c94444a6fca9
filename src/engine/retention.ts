// Is a position still replayable? Under 'as-logged' the log says so (trims,
// an evicted session log); under a numeric retention the what-if world
// applies its own limits and ignores the logged trims.

import type { Policy } from './policy.js';
import { isDigits } from './columns.js';
import { isTrimmed } from './trim-index.js';
import { laneName, laneRoot } from './lanes.js';
import type { EmittedEvent, EngineState, Incarnation, LoggedTrim } from './types.js';

/**
 * Whether `eventId`, emitted on `lane` (its lane, a sequence or stream id that joined it, or its
 * stream), can still be replayed at `atMs` under `policy`. The latest incarnation that emitted it on that lane
 * is the one asked; an id never emitted there is not retained.
 */
export function isRetained(state: EngineState, lane: string, eventId: string | number, atMs: number, policy: Policy): boolean {
  const id = String(eventId);
  const inc = state.incarnations.findLast((i) => isOnLane(i, i.events.get(id), lane));
  const event = inc?.events.get(id);
  return inc !== undefined && event !== undefined && isEventRetained(inc, event, atMs, policy);
}

/** The event is on `lane`: its lane, a name that joined it (lanes.ts), or the stream that emitted it. */
function isOnLane(inc: Incarnation, event: EmittedEvent | undefined, lane: string): boolean {
  return event !== undefined && (event.lane === lane || event.stream === lane || laneRoot(inc, lane) === laneRoot(inc, event.lane));
}

export function isEventRetained(inc: Incarnation, event: EmittedEvent, atMs: number, policy: Policy): boolean {
  if (inc.logEvicted) return false;
  const retention = policy.retention;
  if (retention === 'as-logged') return !isTrimmed(inc, event);
  if (retention.maxAgeMs !== undefined && atMs - event.tsMs > retention.maxAgeMs) return false;
  if (retention.maxEvents !== undefined) {
    // A buffer of the last N events holds the position only while fewer than N came after it (rules.md: the
    // Last-Event-ID event itself must still be in the buffer).
    const laterOnLane = inc.events.laneSize(event.lane) - event.laneIndex - 1;
    if (laterOnLane >= retention.maxEvents) return false;
  }
  return true;
}

/**
 * Whether this one trim takes `event`: the definition that trim-index.ts answers for all of an
 * incarnation's trims at once (and the evidence of a position_evicted cites the first that does).
 */
export function trimTakes(inc: Incarnation, trim: LoggedTrim, event: EmittedEvent): boolean {
  return trimAppliesTo(inc, trim.stream, event) && emittedBefore(inc, event, trim.oldestRetained);
}

/** A trim without `stream` covers the whole session; with one, that stream's lane (lanes.ts). */
function trimAppliesTo(inc: Incarnation, trimmedStream: string | undefined, event: EmittedEvent): boolean {
  if (trimmedStream === undefined || trimmedStream === event.stream) return true;
  const stream = inc.streams.get(trimmedStream);
  return laneRoot(inc, stream === undefined ? trimmedStream : laneName(stream)) === laneRoot(inc, event.lane);
}

/**
 * `event` comes before `oldestRetained` in emission order. For an id never seen emitted,
 * ids made of digits are compared numerically; any other such id proves nothing, and the
 * position is not taken as trimmed.
 */
function emittedBefore(inc: Incarnation, event: EmittedEvent, oldestRetained: string): boolean {
  const oldest = inc.events.get(oldestRetained);
  if (oldest) return event.pos < oldest.pos;
  if (isDigits(oldestRetained) && isDigits(event.id)) return BigInt(event.id) < BigInt(oldestRetained);
  return false;
}
