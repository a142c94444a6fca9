// The engine as a server embeds it, fed the analyzer's own NormalizedRecord type.

import { describe, expect, it } from 'vitest';
import { ResumptionEngine, createState, decide, observe, requestFromUpgrade, type EngineRecord } from '../../src/engine/index.js';
import type { NormalizedRecord } from '../../src/model/record.js';
import { at, liveSessionWithEvents } from './log.js';

const server = (kind: NormalizedRecord['kind'], seconds: number, fields: Partial<NormalizedRecord> = {}): NormalizedRecord => ({
  kind,
  tsMs: at(seconds),
  origin: 'server',
  session: 'S1',
  ...fields,
});

// Seed 001: req-42 answered, then a NAT rebind leaves U1 half-open.
const seed001: NormalizedRecord[] = [
  server('session.created', 0, { principal: 'alice', node: 'n1' }),
  server('stream.opened', 0, { stream: 'U1', via: 'get', conn: 'c1', node: 'n1' }),
  ...['1000', '1001', '1002', '1003', '1004', '1005', '1006'].map((id, i) => server('event.sent', 1 + i, { stream: 'U1', eventId: id })),
  server('request.sent', 8, { stream: 'U1', requestId: 'req-42', method: 'sampling/createMessage', eventId: '1007' }),
  server('request.answered', 9, { requestId: 'req-42', status: 200 }),
];

describe('ResumptionEngine', () => {
  it('accepts the analyzer\'s NormalizedRecord as is', () => {
    // Compile-time half of the check: NormalizedRecord must be assignable to EngineRecord.
    const asEngineRecords: EngineRecord[] = seed001;
    const engine = new ResumptionEngine();
    asEngineRecords.forEach((r) => engine.observe(r));
    expect(engine.sessions().get('S1')?.incarnations[0]?.events.size).toBe(8);
  });

  it('walks seed 001: fence the half-open writer, refuse the answered request and the second client', () => {
    const engine = new ResumptionEngine({ fenceGraceMs: 5000 });
    seed001.forEach((r) => engine.observe(r));

    const reconnect = { sessionId: 'S1', lastEventId: '1007', tsMs: at(10), node: 'n1', conn: 'c2', principal: 'alice' };
    expect(engine.decide(reconnect)).toMatchObject({ decision: 'resume', replay: [], fence: ['U1'] });
    expect(engine.decide({ ...reconnect, lastEventId: '1006' })).toMatchObject({ decision: 'reject', status: 409, checks: ['answered_request_in_window'] });
    expect(engine.decide({ ...reconnect, lastEventId: '1000', principal: 'eve' })).toMatchObject({ decision: 'reject', status: 403 });

    // The server fences U1, resumes onto U2 and sends req-43 there: an attach now owes req-43 and fences U2 only.
    engine.observe(server('stream.fenced', 10, { stream: 'U1' }));
    engine.observe(server('upgrade', 10, { lastEventId: '1007', stream: 'U1', newStream: 'U2', decision: 'resume', status: 200, conn: 'c2' }));
    engine.observe(server('request.sent', 11, { stream: 'U2', requestId: 'req-43', method: 'sampling/createMessage', eventId: '1008' }));
    expect(engine.decide({ ...reconnect, lastEventId: null, tsMs: at(12) })).toMatchObject({ decision: 'attach', reemit: ['req-43'], fence: ['U2'] });
  });

  it('keeps sessions apart by id and drops records of sessions it never saw created', () => {
    const engine = new ResumptionEngine();
    liveSessionWithEvents(3).forEach((r) => engine.observe(r));
    liveSessionWithEvents(5).forEach((r) => engine.observe({ ...r, session: 'S2' }));
    engine.observe({ kind: 'upgrade', tsMs: at(9), session: 'made-up', lastEventId: '1', decision: 'reject', status: 404 });

    expect([...engine.sessions().keys()]).toEqual(['S1', 'S2']);
    expect(engine.decide({ sessionId: 'S1', lastEventId: '4', tsMs: at(9) })).toMatchObject({ checks: ['unknown_event_id'] });
    expect(engine.decide({ sessionId: 'S2', lastEventId: '4', tsMs: at(9) })).toMatchObject({ decision: 'resume', replay: ['5'] });
    expect(engine.decide({ sessionId: 'made-up', lastEventId: null, tsMs: at(9) })).toMatchObject({ status: 404 });
    expect(engine.forget('S2')).toBe(true);
    expect(engine.decide({ sessionId: 'S2', lastEventId: '4', tsMs: at(9) })).toMatchObject({ status: 404 });
  });

  it('rejects an invalid policy at construction', () => {
    expect(() => new ResumptionEngine({ stormCount: 0 })).toThrow(/stormCount/);
  });

  it('decide leaves the state exactly as it was', () => {
    const state = createState();
    seed001.forEach((r) => observe(state, r));
    const before = structuredClone(state);
    decide(state, { sessionId: 'S1', lastEventId: '1003', tsMs: at(20), node: 'n1' });
    decide(state, { sessionId: 'S1', lastEventId: null, tsMs: at(20) });
    expect(state).toEqual(before);
  });
});

describe('requestFromUpgrade', () => {
  it('re-asks a logged reconnect: decided before its own upgrade record is observed', () => {
    const log = liveSessionWithEvents(9);
    const upgrade: EngineRecord = { kind: 'upgrade', tsMs: at(20), session: 'S1', lastEventId: 5, stream: 'g1', newStream: 'g2', decision: 'resume', status: 200, node: 'n1', principal: 'alice' };
    const state = createState();
    log.forEach((r) => observe(state, r));
    expect(requestFromUpgrade(upgrade)).toEqual({ sessionId: 'S1', lastEventId: '5', tsMs: at(20), node: 'n1', conn: undefined, principal: 'alice', isInitialize: false });
    expect(decide(state, requestFromUpgrade(upgrade))).toMatchObject({ decision: 'resume', replay: ['6', '7', '8', '9'] });
  });

  it('takes a fresh upgrade without either header for the initialize POST', () => {
    const init: EngineRecord = { kind: 'upgrade', tsMs: at(0), session: null, lastEventId: null, decision: 'fresh', status: 200, newStream: 'p0' };
    expect(requestFromUpgrade(init)).toMatchObject({ sessionId: null, lastEventId: null, isInitialize: true });
    expect(decide(undefined, requestFromUpgrade(init))).toMatchObject({ decision: 'fresh', newSession: true });
    expect(requestFromUpgrade({ ...init, decision: 'reject', status: 400 }).isInitialize).toBe(false);
  });
});
