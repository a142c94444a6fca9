// The protocol revision in the policy: the table of what each revision allows, how a logged
// version is placed, and the decisions under each revision (positive and near-miss).

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_POLICY,
  PROTOCOL_REVISIONS,
  REVISION_RULES,
  ResumptionEngine,
  decide,
  requestFromUpgrade,
  resolvePolicy,
  revisionFor,
  revisionOf,
  type EngineRequest,
  type Policy,
} from '../../src/engine/index.js';
import { at, liveSessionWithEvents, rec, stateOf } from './log.js';

const request = (fields: Partial<EngineRequest> = {}): EngineRequest => ({ sessionId: 'S1', lastEventId: null, tsMs: at(100), ...fields });
const under = (protocolVersion: Policy['protocolVersion']) => resolvePolicy({ protocolVersion });

/** The polling pattern of 2025-11-25 on a POST stream: priming event, poll close, the response stored for replay. */
const polledCall = [
  rec('session.created', 0, { principal: 'alice' }),
  rec('stream.opened', 1, { stream: 'p1', via: 'post' }),
  rec('call', 1, { rpcId: 7, method: 'tools/call', tool: 'slow', status: 200 }),
  rec('event.sent', 1, { stream: 'p1', eventId: 'e1' }), // the priming event: an id, no data
  rec('stream.closed', 2, { stream: 'p1', reason: 'poll' }),
  rec('event.sent', 5, { stream: 'p1', eventId: 'e2', rpcKind: 'response', rpcId: 7, attached: false }),
];

describe('the revision table', () => {
  it('lists the four revisions oldest first, each with its rules', () => {
    expect(PROTOCOL_REVISIONS).toEqual(['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
    expect(Object.keys(REVISION_RULES)).toEqual([...PROTOCOL_REVISIONS]);
  });

  it('keeps sessions, the GET stream and resumption up to 2025-11-25, which adds priming and polling', () => {
    for (const r of ['2025-03-26', '2025-06-18'] as const) {
      expect(REVISION_RULES[r]).toMatchObject({ initialize: true, sessions: true, getStream: true, resumption: true, priming: false, polling: false, brokenStream: 'resume' });
    }
    expect(REVISION_RULES['2025-11-25']).toMatchObject({ sessions: true, resumption: true, priming: true, polling: true, brokenStream: 'resume' });
  });

  it('has 2026-07-28 without handshake, sessions, GET stream or resumption: a broken stream is re-issued', () => {
    expect(REVISION_RULES['2026-07-28']).toEqual({
      initialize: false,
      sessions: false,
      getStream: false,
      resumption: false,
      priming: false,
      polling: false,
      brokenStream: 'reissue',
    });
    expect(Object.isFrozen(REVISION_RULES['2026-07-28'])).toBe(true);
  });

  it.each([
    ['2025-11-25', '2025-11-25'],
    ['2026-07-28', '2026-07-28'],
    ['2027-01-15', '2026-07-28'],
    ['2025-12-01', '2025-11-25'],
    ['2025-06-18', '2025-06-18'],
    ['2024-11-05', '2025-03-26'],
  ])('places the logged version %s under the rules of %s', (logged, revision) => {
    expect(revisionOf(logged)).toBe(revision);
  });

  it.each([undefined, '', 'latest', 'v2', '2026-7-28'])('places nothing that is not a date (%s)', (logged) => {
    expect(revisionOf(logged)).toBeUndefined();
  });
});

describe('the policy names a revision', () => {
  it('is as logged by default, and the default policy has no protocol field (a Policy written before it still type-checks)', () => {
    expect(DEFAULT_POLICY.protocolVersion).toBeUndefined();
    expect(resolvePolicy({ protocolVersion: '2026-07-28' }).protocolVersion).toBe('2026-07-28');
    expect(resolvePolicy({ protocolVersion: 'as-logged' }).protocolVersion).toBe('as-logged');
  });

  it.each(['2027-01-01', 'stateless', '2025-11-2'])('rejects %s, naming the known revisions', (v) => {
    expect(() => resolvePolicy({ protocolVersion: v as Policy['protocolVersion'] })).toThrow(
      /policy\.protocolVersion must be one of as-logged, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28/,
    );
  });

  it('picks the policy revision first, then the request, then the session, then 2025-11-25', () => {
    const state = stateOf([rec('session.created', 0, { protocolVersion: '2025-06-18' })]);
    expect(revisionFor(DEFAULT_POLICY, request(), undefined)).toBe('2025-11-25');
    expect(revisionFor(DEFAULT_POLICY, request(), state)).toBe('2025-06-18');
    expect(revisionFor(DEFAULT_POLICY, request({ protocolVersion: '2026-07-28' }), state)).toBe('2026-07-28');
    expect(revisionFor(under('2025-03-26'), request({ protocolVersion: '2026-07-28' }), state)).toBe('2025-03-26');
    // Another session's state says nothing of this request's revision.
    expect(revisionFor(DEFAULT_POLICY, request({ sessionId: 'S2' }), state)).toBe('2025-11-25');
  });

  it("takes the session's first logged version: a later record does not change it", () => {
    const state = stateOf([rec('session.created', 0), rec('stream.opened', 1, { stream: 'g1', via: 'get', protocolVersion: '2025-11-25' }), rec('event.sent', 2, { stream: 'g1', eventId: '1', protocolVersion: '2026-07-28' })]);
    expect(state.protocolVersion).toBe('2025-11-25');
  });

  it("takes its creation's legacy version first: the negotiated one, which a later request's header does not override", () => {
    const created = (version: string) => rec('session.created', 0, { protocolVersion: version });
    expect(stateOf([created('2025-06-18'), rec('stream.opened', 1, { stream: 'g1', via: 'get', protocolVersion: '2025-11-25' })]).protocolVersion).toBe('2025-06-18');
    // near miss: a creation that logged 2026-07-28 logged what was asked for, where a request says otherwise
    expect(stateOf([created('2026-07-28'), rec('stream.opened', 1, { stream: 'g1', via: 'get', protocolVersion: '2025-06-18' })]).protocolVersion).toBe('2025-06-18');
  });

  it("takes a request's legacy version before its creation's, and never a later revision's from a request presenting it", () => {
    // the creation logged what the client asked for; its requests, what was negotiated
    expect(stateOf([rec('session.created', 0, { protocolVersion: '2026-07-28' }), rec('stream.opened', 1, { stream: 'g1', via: 'get', protocolVersion: '2025-11-25' })]).protocolVersion).toBe('2025-11-25');
    // a 2026-07-28 request that still presents a session logging none: a stale header, not the session's revision
    expect(stateOf([rec('session.created', 0), rec('stream.opened', 1, { stream: 'g1', via: 'get', protocolVersion: '2026-07-28' })]).protocolVersion).toBeUndefined();
    // with nothing else, the creation's, an earlier revision's before a later one's
    expect(stateOf([rec('session.created', 0, { protocolVersion: '2026-07-28' }), rec('event.sent', 1, { stream: 'g1', eventId: '1', protocolVersion: '2026-07-28' })]).protocolVersion).toBe('2026-07-28');
    expect(stateOf([rec('session.created', 0, { protocolVersion: '2026-07-28' }), rec('session.created', 1, { protocolVersion: '2025-06-18' })]).protocolVersion).toBe('2025-06-18');
  });
});

describe('decisions under 2025-03-26, 2025-06-18 and 2025-11-25: sessions and resumption', () => {
  it.each(['2025-03-26', '2025-06-18', '2025-11-25'] as const)('%s resumes a retained position and attaches without one, as before', (revision) => {
    const state = stateOf(liveSessionWithEvents(5));
    expect(decide(state, request({ lastEventId: '3' }), under(revision))).toMatchObject({ decision: 'resume', status: 200, replay: ['4', '5'] });
    expect(decide(state, request(), under(revision))).toMatchObject({ decision: 'attach', status: 200 });
    expect(decide(undefined, request({ sessionId: null, isInitialize: true }), under(revision))).toMatchObject({ decision: 'fresh', newSession: true, reason: 'initialize' });
  });

  it('2025-11-25: a priming event, a poll close and a response stored for replay: the resumption from the priming id replays it', () => {
    const d = decide(stateOf(polledCall), request({ lastEventId: 'e1' }), under('2025-11-25'));
    expect(d).toMatchObject({ decision: 'resume', status: 200, replay: ['e2'], fence: [], checks: [] });
  });

  it('a session logged at 2025-11-25 decides the same as one that logs no version', () => {
    const logged = stateOf(liveSessionWithEvents(4).map((r) => ({ ...r, protocolVersion: '2025-11-25' })));
    const unlogged = stateOf(liveSessionWithEvents(4));
    for (const lastEventId of [null, '2', '9']) {
      expect(decide(logged, request({ lastEventId }))).toEqual(decide(unlogged, request({ lastEventId })));
    }
  });
});

describe('decisions under 2026-07-28: no sessions, no GET stream, Last-Event-ID ignored', () => {
  const stateless = under('2026-07-28');

  it('refuses a resumption GET with 405, replaying nothing, even where 2025-11-25 would resume', () => {
    const state = stateOf(polledCall);
    expect(decide(state, request({ lastEventId: 'e1' }), under('2025-11-25')).decision).toBe('resume');
    expect(decide(state, request({ lastEventId: 'e1' }), stateless)).toEqual({
      decision: 'reject',
      status: 405,
      reason: 'method_not_allowed',
      replay: [],
      reemit: [],
      cancel: [],
      fence: [],
      newSession: false,
      resetSignalled: false,
      checks: ['method_not_allowed'],
    });
  });

  it('refuses an attach GET with 405 and re-emits nothing', () => {
    const state = stateOf([...liveSessionWithEvents(1), rec('request.sent', 2, { stream: 'g1', requestId: 'r1', method: 'sampling/createMessage' })]);
    expect(decide(state, request(), under('2025-11-25')).reemit).toEqual(['r1']);
    expect(decide(state, request(), stateless)).toMatchObject({ decision: 'reject', status: 405, reemit: [], cancel: [] });
  });

  it('answers initialize with 400 and mints nothing', () => {
    expect(decide(undefined, request({ sessionId: null, isInitialize: true }), stateless)).toMatchObject({
      decision: 'reject',
      status: 400,
      reason: 'initialize_unsupported',
      newSession: false,
    });
  });

  it('serves a POST that carries Last-Event-ID and a session id on its own: nothing minted or replayed', () => {
    const d = decide(stateOf(liveSessionWithEvents(5)), request({ lastEventId: '2', httpMethod: 'POST' }), stateless);
    expect(d).toMatchObject({ decision: 'fresh', status: 200, reason: 'stateless_request', replay: [], newSession: false, resetSignalled: false, checks: [] });
  });

  it('near miss: the same POST under 2025-11-25 is a stream resumption', () => {
    expect(decide(stateOf(liveSessionWithEvents(5)), request({ lastEventId: '2', httpMethod: 'POST' }), under('2025-11-25'))).toMatchObject({ decision: 'resume', replay: ['3', '4', '5'] });
  });

  it('a Last-Event-ID without a session is no 400 under 2026-07-28: the GET is a 405, the POST is served', () => {
    expect(decide(undefined, request({ sessionId: null, lastEventId: '5' }), stateless)).toMatchObject({ status: 405 });
    expect(decide(undefined, request({ sessionId: null, lastEventId: '5', httpMethod: 'post' }), stateless)).toMatchObject({ decision: 'fresh', status: 200 });
    expect(decide(undefined, request({ sessionId: null, lastEventId: '5' }))).toMatchObject({ status: 400, reason: 'event_id_without_session' });
  });

  it("follows the session's logged 2026-07-28 under the default policy, and the request's own version before it", () => {
    const state = stateOf(liveSessionWithEvents(3).map((r) => ({ ...r, protocolVersion: '2026-07-28' })));
    expect(decide(state, request({ lastEventId: '1' }))).toMatchObject({ decision: 'reject', status: 405 });
    expect(decide(state, request({ lastEventId: '1', protocolVersion: '2025-11-25' }))).toMatchObject({ decision: 'resume', replay: ['2', '3'] });
    expect(decide(stateOf(liveSessionWithEvents(3)), request({ lastEventId: '1', protocolVersion: '2027-03-01' }))).toMatchObject({ status: 405 });
  });

  it('ResumptionEngine takes the revision from its policy, and from the requests by default', () => {
    const records = liveSessionWithEvents(2);
    const legacy = new ResumptionEngine();
    const modern = new ResumptionEngine({ protocolVersion: '2026-07-28' });
    for (const r of records) {
      legacy.observe(r);
      modern.observe(r);
    }
    expect(legacy.decide(request({ lastEventId: '1' })).decision).toBe('resume');
    expect(legacy.decide(request({ lastEventId: '1', protocolVersion: '2026-07-28' })).decision).toBe('reject');
    expect(modern.decide(request({ lastEventId: '1' })).status).toBe(405);
  });

  it('requestFromUpgrade carries the upgrade record’s protocol version', () => {
    expect(requestFromUpgrade(rec('upgrade', 3, { lastEventId: 1, decision: 'resume', protocolVersion: '2026-07-28' })).protocolVersion).toBe('2026-07-28');
    expect(requestFromUpgrade(rec('upgrade', 3, { lastEventId: 1, decision: 'resume' }))).not.toHaveProperty('protocolVersion');
  });
});
