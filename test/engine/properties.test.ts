// Properties of the decision boundary over random session logs, each checked
// against facts read from the records by ./oracle.ts, not by the engine.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide, resolvePolicy, type EngineDecision, type EngineRequest, type Policy } from '../../src/engine/index.js';
import { buildLog, commands, policyDraw, requestDraw, toRequest, type GeneratedLog } from './generated-log.js';
import { stateOf } from './log.js';
import { answeredEventIds, emissions, isEnded, lanes, pendingRequests, servingSegment, writers } from './oracle.js';

interface Case {
  log: GeneratedLog;
  request: EngineRequest;
  policy: Policy;
  decision: EngineDecision;
}

const cases = fc.tuple(commands, requestDraw, policyDraw).map(([draws, draw, partial]): Case => {
  const log = buildLog(draws);
  const request = toRequest(draw, log);
  const policy = resolvePolicy(partial);
  return { log, request, policy, decision: decide(stateOf(log.records), request, policy) };
});

const RUNS = { numRuns: 400 };
const sorted = (ids: string[]) => [...ids].sort();

/** The live serving segment of the presented session, if there is one. */
function liveSegment({ log, request }: Case) {
  if (request.sessionId !== 'S1') return undefined;
  const seg = servingSegment(log.records, request.node);
  return seg && !isEnded(seg) ? seg : undefined;
}

describe('engine properties', () => {
  it('never resumes or attaches an unknown or ended session, and never 404s a live one', () => {
    fc.assert(
      fc.property(cases, (c) => {
        const live = liveSegment(c) !== undefined;
        if (c.decision.decision === 'resume' || c.decision.decision === 'attach') expect(live).toBe(true);
        if (live) expect(c.decision.status).not.toBe(404);
      }),
      RUNS,
    );
  });

  it('never replays on attach, never re-emits on resume', () => {
    fc.assert(
      fc.property(cases, ({ decision }) => {
        if (decision.decision === 'attach') expect(decision.replay).toEqual([]);
        if (decision.decision === 'resume') expect([...decision.reemit, ...decision.cancel]).toEqual([]);
      }),
      RUNS,
    );
  });

  it('resumes only a retained position of this incarnation, replaying exactly the later events of its lane', () => {
    fc.assert(
      fc.property(cases, (c) => {
        if (c.decision.decision !== 'resume') return;
        const seg = liveSegment(c)!;
        const emitted = emissions(seg);
        const event = emitted.find((e) => e.id === String(c.request.lastEventId));
        expect(event).toBeDefined();
        // Its lane: the streams that resumptions continued it on.
        const laneOf = lanes(seg);
        const later = emitted.filter((e) => laneOf(e.stream) === laneOf(event!.stream) && e.index > event!.index);
        expect(c.decision.replay).toEqual(later.map((e) => e.id));

        const retention = c.policy.retention;
        if (retention === 'as-logged') {
          const trims = seg.records.filter((r) => r.kind === 'buffer.trimmed' && (r.stream === undefined || laneOf(r.stream) === laneOf(event!.stream)));
          for (const trim of trims) expect(Number(trim.oldestRetained)).toBeLessThanOrEqual(Number(event!.id));
        } else {
          if (retention.maxAgeMs !== undefined) expect(c.request.tsMs - event!.tsMs).toBeLessThanOrEqual(retention.maxAgeMs);
          if (retention.maxEvents !== undefined) expect(later.length).toBeLessThan(retention.maxEvents);
        }
      }),
      RUNS,
    );
  });

  it('never resumes across a state change or an answered request', () => {
    fc.assert(
      fc.property(cases, (c) => {
        if (c.decision.decision !== 'resume') return;
        const seg = liveSegment(c)!;
        const event = emissions(seg).find((e) => e.id === String(c.request.lastEventId))!;
        expect(seg.records.slice(event.index).some((r) => r.kind === 'session.state_changed')).toBe(false);
        const answered = answeredEventIds(seg);
        expect(c.decision.replay.filter((id) => answered.has(id))).toEqual([]);
      }),
      RUNS,
    );
  });

  it('on attach, every pending request is re-emitted or cancelled, in the order sent', () => {
    fc.assert(
      fc.property(cases, (c) => {
        if (c.decision.decision !== 'attach') return;
        const pending = pendingRequests(liveSegment(c)!);
        const handled = c.policy.pendingOnAttach === 'reemit' ? c.decision.reemit : c.decision.cancel;
        expect(handled).toEqual(pending);
        expect(c.decision.reemit.length + c.decision.cancel.length).toBe(pending.length);
      }),
      RUNS,
    );
  });

  it('after a resume or attach, fencing leaves no other live writer in the lineage', () => {
    fc.assert(
      fc.property(cases, (c) => {
        if (c.decision.decision !== 'resume' && c.decision.decision !== 'attach') return;
        const seg = liveSegment(c)!;
        const w = writers(seg);
        const priorWriters =
          c.decision.decision === 'attach'
            ? w.liveStandalone()
            : w.liveInLineageOf(emissions(seg).find((e) => e.id === String(c.request.lastEventId))!.stream);
        // Only the new stream is left writing: every prior live writer is fenced, and nothing else is.
        expect(sorted(c.decision.fence)).toEqual(sorted(priorWriters));
      }),
      RUNS,
    );
  });

  it('an unresumable request under reset is always a signalled fresh session, never a 409', () => {
    fc.assert(
      fc.property(cases, ({ policy, decision }) => {
        if (policy.unresumable === 'reset') expect(decision.status).not.toBe(409);
        if (decision.decision === 'fresh') expect(decision.newSession).toBe(true);
        if (decision.decision === 'fresh' && decision.checks.length > 0) expect(decision.resetSignalled).toBe(true);
      }),
      RUNS,
    );
  });

  it('decide is pure: the state is untouched and the same question gets the same answer', () => {
    fc.assert(
      fc.property(commands, requestDraw, (draws, draw) => {
        const log = buildLog(draws);
        const state = stateOf(log.records);
        const before = structuredClone(state);
        const request = toRequest(draw, log);
        const first = decide(state, request);
        // Clone against clone: an incarnation set aside shares read-only collections, which a clone makes plain ones.
        expect(structuredClone(state)).toEqual(before);
        expect(decide(state, request)).toEqual(first);
      }),
      { numRuns: 100 },
    );
  });
});
