// A resumption continues the stream it resumes (2025-11-25 transports: replay what "would have been sent after
// the last event ... on the stream that was disconnected"): what the continuation sends is on the same lane, and a
// later resumption from an event of the first stream replays it. The analyzer's lanes say the same (README
// "Lanes"): a 200 that left it out is the silent-truncation resumescope reports.

import { describe, expect, it } from 'vitest';
import { decide, resolvePolicy, type EngineRecord, type EngineRequest } from '../../src/engine/index.js';
import { at, rec, stateOf, type Fields } from './log.js';

const ask = (records: EngineRecord[], lastEventId: string, policy = resolvePolicy({})) => {
  const request: EngineRequest = { sessionId: 'S1', lastEventId, tsMs: at(10) };
  const d = decide(stateOf(records), request, policy);
  return { decision: d.decision, status: d.status, replay: d.replay, checks: d.checks };
};

/** GET g1 sends e1..e3 and drops; the client resumes from e1 onto g2 (`g2` says how g2 came to be), which sends e4. */
function continuedOnG2(g2: EngineRecord[], fields: { opened?: Fields; e4?: Fields } = {}): EngineRecord[] {
  return [
    rec('session.created', 0),
    rec('upgrade', 0, { lastEventId: null, decision: 'attach', status: 200, newStream: 'g1' }),
    rec('stream.opened', 0, { stream: 'g1', via: 'get', ...fields.opened }),
    rec('event.sent', 1, { stream: 'g1', eventId: 'e1' }),
    rec('event.sent', 2, { stream: 'g1', eventId: 'e2' }),
    rec('event.sent', 3, { stream: 'g1', eventId: 'e3' }),
    rec('stream.closed', 4, { stream: 'g1', reason: 'client' }),
    ...g2,
    rec('stream.opened', 5, { stream: 'g2', via: 'get', ...fields.opened }),
    rec('event.sent', 6, { stream: 'g2', eventId: 'e4', ...fields.e4 }),
    rec('stream.closed', 7, { stream: 'g2', reason: 'client' }),
  ];
}

const RESUMED = [rec('upgrade', 5, { lastEventId: 'e1', stream: 'g1', decision: 'resume', status: 200, newStream: 'g2' })];

describe('lanes follow resumptions', () => {
  it('replays what the continuation of a resumed stream sent, from an event of the stream it resumed', () => {
    const log = continuedOnG2(RESUMED);
    expect(ask(log, 'e3')).toEqual({ decision: 'resume', status: 200, replay: ['e4'], checks: [] });
    expect(ask(log, 'e1').replay).toEqual(['e2', 'e3', 'e4']);
    expect(ask(log, 'e4').replay).toEqual([]);
  });

  it('does so whether stream.opened names a shared sequence, a sequence of its own, or the event its lane', () => {
    expect(ask(continuedOnG2(RESUMED, { opened: { sequence: 'G' } }), 'e3').replay).toEqual(['e4']);
    // g2 learns a sequence no other stream has after the resume joined it: the resumed lane stays its lane
    const ownSequence = continuedOnG2(RESUMED);
    ownSequence.splice(ownSequence.findIndex((r) => r.kind === 'stream.opened' && r.stream === 'g2'), 1, rec('stream.opened', 5, { stream: 'g2', via: 'get', sequence: 'H' }));
    expect(ask(ownSequence, 'e3').replay).toEqual(['e4']);
    expect(ask(continuedOnG2(RESUMED, { e4: { sequence: 'g1' } }), 'e3').replay).toEqual(['e4']);
  });

  it('continues the stream that emitted Last-Event-ID where the upgrade names none, and chains resumptions', () => {
    const log = continuedOnG2([rec('upgrade', 5, { lastEventId: 'e1', decision: 'resume', status: 200, newStream: 'g2' })]);
    log.push(rec('upgrade', 8, { lastEventId: 'e4', stream: 'g2', decision: 'resume', status: 200, newStream: 'g3' }));
    log.push(rec('event.sent', 9, { stream: 'g3', eventId: 'e5' }));
    expect(ask(log, 'e2').replay).toEqual(['e3', 'e4', 'e5']);
  });

  it('places events the continuation sent before its upgrade was logged (a clock behind) in emission order on the lane', () => {
    // as the analyzer's lane orders them: e4 was logged between e2 and e3
    const log = continuedOnG2(RESUMED);
    const e4 = log.splice(log.findIndex((r) => r.eventId === 'e4'), 1)[0]!;
    log.splice(log.findIndex((r) => r.eventId === 'e3'), 0, { ...e4, tsMs: at(2.5) });
    expect(ask(log, 'e1').replay).toEqual(['e2', 'e4', 'e3']);
    expect(ask(log, 'e4').replay).toEqual(['e3']);
    expect(ask(log, 'e3', resolvePolicy({ retention: { maxEvents: 1 } }))).toMatchObject({ decision: 'resume', replay: [] });
    expect(ask(log, 'e4', resolvePolicy({ retention: { maxEvents: 1 } }))).toMatchObject({ decision: 'reject', checks: ['position_evicted'] });
  });

  it('keeps apart a stream an attach opened, a stream opened afresh, and one a rejected resume named', () => {
    const attached = continuedOnG2([rec('upgrade', 5, { lastEventId: null, decision: 'attach', status: 200, newStream: 'g2' })]);
    expect(ask(attached, 'e3')).toEqual({ decision: 'resume', status: 200, replay: [], checks: [] });
    expect(ask(continuedOnG2([]), 'e3').replay).toEqual([]);
    const rejected = continuedOnG2([rec('upgrade', 5, { lastEventId: 'e1', stream: 'g1', decision: 'reject', status: 409, newStream: 'g2' })]);
    expect(ask(rejected, 'e3').replay).toEqual([]);
  });

  it('counts the continuation against a retention of the last N events of the lane', () => {
    const policy = resolvePolicy({ retention: { maxEvents: 1 } });
    // e4 came after e3 on its lane: a buffer of one event keeps e4 only
    expect(ask(continuedOnG2(RESUMED), 'e3', policy)).toMatchObject({ decision: 'reject', status: 409, checks: ['position_evicted'] });
    expect(ask(continuedOnG2(RESUMED), 'e4', policy)).toMatchObject({ decision: 'resume', replay: [] });
  });

  it("takes a trim of the continuation as a trim of the lane it continues, and not of an attach's", () => {
    const trim = rec('buffer.trimmed', 6.5, { stream: 'g2', oldestRetained: 'e3' });
    const resumed = continuedOnG2(RESUMED);
    resumed.splice(-1, 0, trim);
    expect(ask(resumed, 'e2')).toMatchObject({ decision: 'reject', checks: ['position_evicted'] });
    expect(ask(resumed, 'e3').replay).toEqual(['e4']);
    const attached = continuedOnG2([rec('upgrade', 5, { lastEventId: null, decision: 'attach', status: 200, newStream: 'g2' })]);
    attached.splice(-1, 0, trim);
    expect(ask(attached, 'e2')).toMatchObject({ decision: 'resume', replay: ['e3'] });
  });
});
