import { servingIncarnation, type EmittedEvent, type EngineDecision, type Incarnation, type Policy } from '../engine/index.js';
import { lineageRoot } from '../engine/lineage.js';
import { writersElsewhere, writersElsewhereCount } from '../engine/live-writers.js';
import { trimTakes } from '../engine/retention.js';
import type { UpgradePoint } from './engine-replay.js';

// The log lines behind an engine decision, where the engine can name them: the
// trim or eviction that took the position, the state change in the replay
// window, the creation or end of the session, the event a resume would
// continue from. Record ids in log order, all before the upgrade itself.

export function decisionEvidence(p: UpgradePoint, d: EngineDecision, policy: Policy): number[] {
  const state = p.state;
  if (state === undefined) return [];
  const inc = servingIncarnation(state, p.request);
  if (d.reason === 'session_not_found') return sessionNotFound(p, state, inc);
  if (!inc) return [];
  if (d.reason === 'principal_mismatch') return optional(p.createdRecordId(inc));
  const positions: number[] = [];
  const event = p.request.lastEventId === null ? undefined : inc.events.get(String(p.request.lastEventId));
  if (d.decision === 'resume' && event) positions.push(event.pos);
  if (event) for (const check of d.checks) positions.push(...checkPositions(inc, event, check, p.request, policy, p.upgrade.tsMs));
  return idsAt(p, positions);
}

/** Positions of the records that made `check` fail for a resume from `event`. */
function checkPositions(inc: Incarnation, event: EmittedEvent, check: string, request: UpgradePoint['request'], policy: Policy, atMs: number): number[] {
  switch (check) {
    case 'position_evicted': {
      if (inc.logEvicted && inc.ended) return [inc.ended.pos];
      if (policy.retention !== 'as-logged') return retentionPositions(inc, event, atMs, policy.retention);
      // The first logged trim that, on its own, takes the position.
      const trim = inc.trims.find((t) => trimTakes(inc, t, event));
      return trim ? [trim.pos] : [];
    }
    case 'state_changed_in_window': {
      const change = inc.stateChanges.find((c) => c.pos > event.pos);
      return change ? [change.pos] : [];
    }
    case 'answered_request_in_window': {
      const replay = inc.events.after(event);
      const carrier = replay.map((id) => inc.events.get(id)).find((e) => e?.requestId !== undefined && inc.requests.get(e.requestId)?.answered);
      return carrier ? [carrier.pos] : [];
    }
    case 'prior_writer_unfenceable':
      // A server that logs no stream.closed, on two nodes sharing a store, leaves every earlier stream of the other
      // node among them, and citing them all made each finding cite the session so far (400k lines: 13.5M
      // citations, a 1.4 GB JSON report). The latest MAX_CITED_WRITERS are cited; the finding says how many there were.
      return event.stream === undefined
        ? []
        : writersElsewhere(inc, lineageRoot(inc, event.stream), request.node)
            .slice(-MAX_CITED_WRITERS)
            .map((s) => s.openedPos);
    default:
      return [];
  }
}

/**
 * What a what-if retention evicted the position by: its own event.sent, whose time is its age; and
 * under a count, the event that made it one too many back (the Nth after it on its lane).
 */
function retentionPositions(inc: Incarnation, event: EmittedEvent, atMs: number, retention: Exclude<Policy['retention'], 'as-logged'>): number[] {
  const positions: number[] = [];
  if (retention.maxAgeMs !== undefined && atMs - event.tsMs > retention.maxAgeMs) positions.push(event.pos);
  if (retention.maxEvents !== undefined) {
    const evictor = inc.events.nthAfter(event, retention.maxEvents);
    if (evictor !== undefined) positions.push(event.pos, evictor.pos);
  }
  return positions;
}

/** The end of the session, or its creation on another node than the one that answered. */
function sessionNotFound(p: UpgradePoint, state: NonNullable<UpgradePoint['state']>, inc: Incarnation | undefined): number[] {
  const ended = (inc ?? state.incarnations.at(-1))?.ended;
  if (ended) return idsAt(p, [ended.pos]);
  const createdElsewhere = state.incarnations.findLast((i) => i.created);
  return createdElsewhere ? optional(p.createdRecordId(createdElsewhere)) : [];
}

export const MAX_CITED_WRITERS = 20;

/** The writers on another node that made `d` refuse a resumption, all of them (none: empty). */
export function unfenceableWriterIds(p: UpgradePoint, d: EngineDecision): string[] {
  if (p.state === undefined || !d.checks.includes('prior_writer_unfenceable') || p.request.lastEventId === null) return [];
  const inc = servingIncarnation(p.state, p.request);
  const stream = inc?.events.get(String(p.request.lastEventId))?.stream;
  return inc === undefined || stream === undefined ? [] : writersElsewhere(inc, lineageRoot(inc, stream), p.request.node).map((s) => s.id);
}

/** How many writers on another node made `d` refuse a resumption (0: none did). */
export function unfenceableWriters(p: UpgradePoint, d: EngineDecision): number {
  if (p.state === undefined || !d.checks.includes('prior_writer_unfenceable')) return 0;
  const inc = servingIncarnation(p.state, p.request);
  if (inc === undefined || p.request.lastEventId === null) return 0;
  const stream = inc.events.get(String(p.request.lastEventId))?.stream;
  return stream === undefined ? 0 : writersElsewhereCount(inc, [lineageRoot(inc, stream)], p.request.node);
}

function idsAt(p: UpgradePoint, positions: number[]): number[] {
  const ids = [...new Set(positions)].sort((a, b) => a - b).map((pos) => p.recordIdAt(pos));
  return ids.filter((id): id is number => id !== undefined);
}

function optional(id: number | undefined): number[] {
  return id === undefined ? [] : [id];
}
