// The seeds' decision table, one row per branch and near-miss, through the public API.

import { describe, expect, it } from 'vitest';
import { decide, resolvePolicy, type EngineDecision, type EngineRecord, type EngineRequest, type Policy } from '../../src/engine/index.js';
import { at, liveSessionWithEvents, rec, stateOf, type Fields } from './log.js';

interface Row {
  name: string;
  log: EngineRecord[];
  request: Partial<EngineRequest>;
  policy?: Partial<Policy>;
  expect: Partial<EngineDecision>;
}

function run(rows: Row[]): void {
  it.each(rows.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const request: EngineRequest = { sessionId: 'S1', lastEventId: null, tsMs: at(100), ...row.request };
    expect(decide(stateOf(row.log), request, resolvePolicy(row.policy))).toMatchObject(row.expect);
  });
}

const events = liveSessionWithEvents;

describe('no Mcp-Session-Id', () => {
  run([
    {
      name: 'Last-Event-ID without a session is rejected, never replayed from a global log (seed 000)',
      log: events(9),
      request: { sessionId: null, lastEventId: '5' },
      expect: { decision: 'reject', status: 400, reason: 'event_id_without_session', replay: [], checks: ['event_id_without_session'] },
    },
    {
      name: 'initialize without a session mints one',
      log: [],
      request: { sessionId: null, isInitialize: true },
      expect: { decision: 'fresh', status: 200, reason: 'initialize', newSession: true, resetSignalled: false, checks: [] },
    },
    {
      name: 'a GET without a session and without initialize is a 400',
      log: [],
      request: { sessionId: null },
      expect: { decision: 'reject', status: 400, reason: 'session_required' },
    },
    {
      name: 'empty headers count as absent',
      log: events(3),
      request: { sessionId: '', lastEventId: '', isInitialize: true },
      expect: { decision: 'fresh', status: 200, newSession: true },
    },
  ]);
});

describe('unknown or ended session: 404', () => {
  const notFound: Partial<EngineDecision> = { decision: 'reject', status: 404, reason: 'session_not_found', replay: [], reemit: [] };
  run([
    { name: 'never observed at all', log: [], request: { lastEventId: '5' }, expect: notFound },
    {
      name: 'records but no session.created (the log starts mid-session)',
      log: events(5).slice(1),
      request: { lastEventId: '3' },
      expect: notFound,
    },
    {
      name: 'terminated: its retained log is no resumption source (seed 002)',
      log: [...events(9), rec('session.terminated', 20, { reason: 'client_delete' })],
      request: { lastEventId: '5' },
      expect: notFound,
    },
    {
      name: 'evicted by the reaper, attach attempt (seed 004)',
      log: [...events(7), rec('session.evicted', 31, { reason: 'idle_timeout' })],
      request: {},
      expect: notFound,
    },
    {
      name: 'evicted with log_evicted:false is still an ended session',
      log: [...events(7), rec('session.evicted', 31, { logEvicted: false })],
      request: { lastEventId: '7' },
      expect: notFound,
    },
    {
      name: 'created only on another node (no shared session store)',
      log: [rec('session.created', 0, { node: 'n1' })],
      request: { node: 'n2' },
      expect: notFound,
    },
  ]);
  run([
    {
      name: 'near miss: same node attaches',
      log: [rec('session.created', 0, { node: 'n1' })],
      request: { node: 'n1' },
      expect: { decision: 'attach', status: 200 },
    },
    {
      name: 'near miss: request node unknown attaches',
      log: [rec('session.created', 0, { node: 'n1' })],
      request: {},
      expect: { decision: 'attach', status: 200 },
    },
    {
      name: 'near miss: an id created again after termination is live again',
      log: [rec('session.created', 0), rec('session.terminated', 5), rec('session.created', 9)],
      request: {},
      expect: { decision: 'attach', status: 200 },
    },
    {
      name: 'near miss: created again on another node leaves this node\'s session live',
      log: [rec('session.created', 0, { node: 'n1' }), rec('session.created', 5, { node: 'n2' }), rec('session.terminated', 6, { node: 'n2' })],
      request: { node: 'n1' },
      expect: { decision: 'attach', status: 200 },
    },
  ]);
});

describe('another principal than the owner: 403', () => {
  run([
    {
      name: 'a second client holding the token cannot resume the owner\'s stream (seed 001)',
      log: events(9),
      request: { lastEventId: '1', principal: 'mallory' },
      expect: { decision: 'reject', status: 403, reason: 'principal_mismatch', replay: [] },
    },
    {
      name: 'nor attach to it',
      log: events(9),
      request: { principal: 'mallory' },
      expect: { decision: 'reject', status: 403 },
    },
    {
      name: 'owner falls back to the first principal logged',
      log: [rec('session.created', 0), rec('stream.opened', 1, { stream: 'g1', via: 'get', principal: 'bob' })],
      request: { principal: 'mallory' },
      expect: { decision: 'reject', status: 403 },
    },
    {
      name: 'near miss: the owner resumes',
      log: events(9),
      request: { lastEventId: '8', principal: 'alice' },
      expect: { decision: 'resume', replay: ['9'] },
    },
  ]);
});

describe('live session, no Last-Event-ID: attach', () => {
  // Seed 000: two sampling requests delivered only on the old stream.
  const pendingTwo = [
    ...events(5),
    rec('request.sent', 6, { stream: 'g1', requestId: 'r1', method: 'sampling/createMessage', eventId: '6' }),
    rec('request.sent', 7, { stream: 'g1', requestId: 'r2', method: 'sampling/createMessage', eventId: '7' }),
  ];
  run([
    {
      name: 'pending requests are re-emitted, nothing is replayed (seed 000)',
      log: pendingTwo,
      request: {},
      expect: { decision: 'attach', status: 200, reason: 'session_resumption', replay: [], reemit: ['r1', 'r2'], cancel: [], fence: ['g1'] },
    },
    {
      name: 'or cancelled, per policy',
      log: pendingTwo,
      request: {},
      policy: { pendingOnAttach: 'cancel' },
      expect: { decision: 'attach', reemit: [], cancel: ['r1', 'r2'] },
    },
    {
      name: 'a 404 answer leaves the request pending',
      log: [...pendingTwo, rec('request.answered', 8, { requestId: 'r1', status: 404 })],
      request: {},
      expect: { reemit: ['r1', 'r2'] },
    },
    {
      name: 'answered 2xx, cancelled, timed out and re-issued requests are not pending; the re-issued id is',
      log: [
        ...pendingTwo,
        rec('request.sent', 8, { stream: 'g1', requestId: 'r3', eventId: '8' }),
        rec('request.sent', 8, { stream: 'g1', requestId: 'r4', eventId: '9' }),
        rec('request.answered', 9, { requestId: 'r1', status: 202 }),
        rec('request.cancelled', 9, { requestId: 'r2' }),
        rec('request.timed_out', 9, { requestId: 'r3' }),
        rec('request.reissued', 10, { requestId: 'r4', newRequestId: 'r5', stream: 'g1' }),
      ],
      request: {},
      expect: { reemit: ['r5'] },
    },
    {
      name: 'an event.sent with rpc_kind request marks a server request',
      log: [...events(2), rec('event.sent', 3, { stream: 'g1', eventId: '3', rpcKind: 'request', rpcId: 42, method: 'roots/list' })],
      request: {},
      expect: { reemit: ['42'] },
    },
    {
      name: 'near miss: zero pending requests need no re-emit',
      log: [...events(3), rec('event.sent', 4, { stream: 'g1', eventId: '4', rpcKind: 'notification' })],
      request: {},
      expect: { decision: 'attach', reemit: [], cancel: [], replay: [] },
    },
    {
      name: 'only live standalone streams are fenced: not closed, fenced or POST ones',
      log: [
        rec('session.created', 0),
        rec('stream.opened', 1, { stream: 'g1', via: 'get' }),
        rec('stream.opened', 1, { stream: 'g2', via: 'get' }),
        rec('stream.opened', 1, { stream: 'g3', via: 'get' }),
        rec('stream.opened', 1, { stream: 'p1', via: 'post' }),
        rec('stream.closed', 2, { stream: 'g2', reason: 'client' }),
        rec('stream.fenced', 2, { stream: 'g3' }),
      ],
      request: {},
      expect: { fence: ['g1'] },
    },
    {
      name: 'a POST response stream resumed by a GET stays a POST lineage',
      log: [
        rec('session.created', 0),
        rec('stream.opened', 1, { stream: 'p1', via: 'post' }),
        rec('event.sent', 2, { stream: 'p1', eventId: '1' }),
        rec('upgrade', 3, { lastEventId: '1', stream: 'p1', newStream: 'p2', decision: 'resume', status: 200 }),
        rec('stream.opened', 3, { stream: 'p2', via: 'get' }),
      ],
      request: {},
      expect: { decision: 'attach', fence: [] },
    },
    {
      name: 'an earlier attach left its predecessor live: both are fenced',
      log: [
        rec('session.created', 0),
        rec('stream.opened', 1, { stream: 'g1', via: 'get' }),
        rec('upgrade', 2, { lastEventId: null, newStream: 'g2', decision: 'attach', status: 200 }),
      ],
      request: {},
      expect: { fence: ['g1', 'g2'] },
    },
    {
      name: 'a live standalone writer on another node cannot be fenced from here',
      log: [rec('session.created', 0), rec('stream.opened', 1, { stream: 'g1', via: 'get', node: 'n2' })],
      request: { node: 'n1' },
      expect: { decision: 'reject', status: 409, reason: 'resumption_unavailable', checks: ['prior_writer_unfenceable'] },
    },
  ]);
});

describe('live session with Last-Event-ID: resume', () => {
  run([
    {
      name: 'replays every later event of its lane, re-emits nothing, fences the half-open writer (seeds 000, 001)',
      log: [...events(9), rec('request.sent', 10, { stream: 'g1', requestId: 'r1', eventId: '10' })],
      request: { lastEventId: '5' },
      expect: { decision: 'resume', status: 200, reason: 'stream_resumption', replay: ['6', '7', '8', '9', '10'], reemit: [], cancel: [], fence: ['g1'], checks: [] },
    },
    {
      name: 'the integer 5 and the string "5" are one id',
      log: events(9),
      request: { lastEventId: 5 },
      expect: { decision: 'resume', replay: ['6', '7', '8', '9'] },
    },
    {
      name: 'a closed writer needs no fence; nothing after the last event means an empty replay',
      log: [...events(3), rec('stream.closed', 4, { stream: 'g1', reason: 'client' })],
      request: { lastEventId: '3' },
      expect: { decision: 'resume', replay: [], fence: [] },
    },
    {
      name: 'the replay stays on the lane that emitted Last-Event-ID',
      log: [
        ...events(2),
        rec('stream.opened', 3, { stream: 'p1', via: 'post' }),
        rec('event.sent', 4, { stream: 'p1', eventId: '3' }),
        rec('event.sent', 5, { stream: 'g1', eventId: '4' }),
      ],
      request: { lastEventId: '1' },
      expect: { decision: 'resume', replay: ['2', '4'], fence: ['g1'] },
    },
    {
      name: 'streams sharing a sequence are one lane and one lineage',
      log: [
        rec('session.created', 0),
        rec('event.sent', 1, { stream: 'a', sequence: 'q', eventId: '1' }),
        rec('event.sent', 2, { stream: 'a', sequence: 'q', eventId: '2' }),
        rec('stream.closed', 3, { stream: 'a', reason: 'error' }),
        rec('event.sent', 4, { stream: 'b', sequence: 'q', eventId: '3' }),
      ],
      request: { lastEventId: '1' },
      expect: { decision: 'resume', replay: ['2', '3'], fence: ['b'] },
    },
    {
      name: 'unattached events exist only for replay, and are replayed',
      log: [...events(2), rec('event.sent', 3, { stream: 'g1', eventId: '3', attached: false })],
      request: { lastEventId: '1' },
      expect: { replay: ['2', '3'] },
    },
    {
      name: 'an event.sent and the request.sent naming it are one emission',
      log: [
        ...events(2),
        rec('event.sent', 3, { stream: 'g1', eventId: '3', rpcKind: 'request', rpcId: 'r1' }),
        rec('request.sent', 3, { stream: 'g1', requestId: 'r1', eventId: '3' }),
      ],
      request: { lastEventId: '1' },
      expect: { replay: ['2', '3'] },
    },
    {
      name: 'a resumed lineage whose old writer was left live gets both fenced',
      log: [
        ...events(2),
        rec('upgrade', 3, { lastEventId: '2', stream: 'g1', newStream: 'g2', decision: 'resume', status: 200 }),
        rec('event.sent', 4, { stream: 'g2', eventId: '3' }),
      ],
      request: { lastEventId: '3' },
      expect: { decision: 'resume', replay: [], fence: ['g1', 'g2'] },
    },
  ]);
});

describe('live session with an unresumable Last-Event-ID', () => {
  const unavailable = (checks: string[]): Partial<EngineDecision> => ({ decision: 'reject', status: 409, reason: 'resumption_unavailable', replay: [], checks });
  const trimmed = (oldest: string, fields: Fields = {}) => rec('buffer.trimmed', 20, { stream: 'g1', oldestRetained: oldest, ...fields });
  run([
    { name: 'never emitted in this session', log: events(9), request: { lastEventId: '77' }, expect: unavailable(['unknown_event_id']) },
    {
      name: 'never emitted, under unresumable: reset, is a signalled fresh session',
      log: events(9),
      request: { lastEventId: '77' },
      policy: { unresumable: 'reset' },
      expect: { decision: 'fresh', status: 200, newSession: true, resetSignalled: true, replay: [], checks: ['unknown_event_id'] },
    },
    {
      name: 'emitted only by an earlier incarnation of the id (seed 004)',
      log: [
        rec('session.created', 0, { incarnation: 'i-1' }),
        ...['e1', 'e2', 'e7'].map((id, i) => rec('event.sent', i + 1, { stream: 'p1', eventId: id })),
        rec('session.evicted', 31, { reason: 'idle_timeout' }),
        rec('session.created', 46, { incarnation: 'i-2' }),
        rec('event.sent', 47, { stream: 'p2', eventId: 'e1' }),
      ],
      request: { lastEventId: 'e7' },
      expect: unavailable(['foreign_event_id']),
    },
    {
      name: 'the caller knows the id belongs to another session',
      log: events(9),
      request: { lastEventId: '5', foreignSession: true },
      expect: unavailable(['foreign_event_id']),
    },
    { name: 'trimmed: oldest_retained is later (seed 002)', log: [...events(9), trimmed('7')], request: { lastEventId: '5' }, expect: unavailable(['position_evicted']) },
    {
      name: 'trimmed, under reset: fresh with reset signalled, not silent',
      log: [...events(9), trimmed('7')],
      request: { lastEventId: '5' },
      policy: { unresumable: 'reset' },
      expect: { decision: 'fresh', newSession: true, resetSignalled: true, checks: ['position_evicted'] },
    },
    {
      name: 'a session-wide trim counts emission order across streams',
      log: [...events(5), rec('event.sent', 6, { stream: 'p1', eventId: '6' }), trimmed('6', { stream: undefined })],
      request: { lastEventId: '5' },
      expect: unavailable(['position_evicted']),
    },
    {
      name: 'an oldest_retained never seen emitted is compared numerically when both are digits',
      log: [...events(9), trimmed('50')],
      request: { lastEventId: '9' },
      expect: unavailable(['position_evicted']),
    },
    {
      name: 'a state change after the event (seed 002)',
      log: [...events(9), rec('session.state_changed', 6.5, { aspect: 'capabilities' })],
      request: { lastEventId: '5' },
      expect: unavailable(['state_changed_in_window']),
    },
    {
      name: 'an answered server request in the replay window (seed 001)',
      log: [
        ...events(6),
        rec('request.sent', 7, { stream: 'g1', requestId: 'req-42', method: 'sampling/createMessage', eventId: '7' }),
        rec('request.answered', 8, { requestId: 'req-42', status: 200 }),
      ],
      request: { lastEventId: '6' },
      expect: unavailable(['answered_request_in_window']),
    },
    {
      name: 'the prior writer lives on another node',
      log: [rec('session.created', 0, { node: 'n1' }), rec('stream.opened', 0, { stream: 'g1', via: 'get', node: 'n2' }), rec('event.sent', 1, { stream: 'g1', eventId: '1', node: 'n2' })],
      request: { lastEventId: '1', node: 'n1' },
      expect: unavailable(['prior_writer_unfenceable']),
    },
    {
      name: 'every failed check is named, in order',
      log: [
        ...events(5),
        rec('session.state_changed', 6, { aspect: 'auth_scope' }),
        rec('request.sent', 7, { stream: 'g1', requestId: 'r1', eventId: '6' }),
        rec('request.answered', 8, { requestId: 'r1', status: 200 }),
        trimmed('4'),
      ],
      request: { lastEventId: '3' },
      expect: unavailable(['position_evicted', 'state_changed_in_window', 'answered_request_in_window']),
    },
  ]);
});

describe('near misses that stay resumable', () => {
  const resumes = (replay: string[]): Partial<EngineDecision> => ({ decision: 'resume', status: 200, replay, checks: [] });
  run([
    { name: 'a trim naming an earlier oldest_retained keeps the position', log: [...events(9), rec('buffer.trimmed', 20, { stream: 'g1', oldestRetained: '3' })], request: { lastEventId: '5' }, expect: resumes(['6', '7', '8', '9']) },
    { name: 'oldest_retained equal to Last-Event-ID keeps it', log: [...events(9), rec('buffer.trimmed', 20, { stream: 'g1', oldestRetained: 5 })], request: { lastEventId: '5' }, expect: resumes(['6', '7', '8', '9']) },
    {
      name: 'a trim of another stream does not touch this one',
      log: [...events(5), rec('event.sent', 6, { stream: 'p1', eventId: '6' }), rec('event.sent', 7, { stream: 'p1', eventId: '7' }), rec('buffer.trimmed', 20, { stream: 'p1', oldestRetained: '7' })],
      request: { lastEventId: '5' },
      expect: resumes([]),
    },
    { name: 'an opaque oldest_retained never seen emitted proves nothing', log: [...events(9), rec('buffer.trimmed', 20, { stream: 'g1', oldestRetained: 'x9' })], request: { lastEventId: '5' }, expect: resumes(['6', '7', '8', '9']) },
    { name: 'a state change before the event does not block', log: [...events(9), rec('session.state_changed', 4.5, { aspect: 'subscriptions' })].sort((a, b) => a.tsMs - b.tsMs), request: { lastEventId: '5' }, expect: resumes(['6', '7', '8', '9']) },
    {
      name: 'the answered request at Last-Event-ID itself is outside the window',
      log: [...events(6), rec('request.sent', 7, { stream: 'g1', requestId: 'req-42', eventId: '7' }), rec('request.answered', 8, { requestId: 'req-42', status: 200 })],
      request: { lastEventId: '7' },
      expect: resumes([]),
    },
    {
      name: 'an answer refused with 404 was not taken: replaying the request is right',
      log: [...events(6), rec('request.sent', 7, { stream: 'g1', requestId: 'req-42', eventId: '7' }), rec('request.answered', 8, { requestId: 'req-42', status: 404 })],
      request: { lastEventId: '6' },
      expect: resumes(['7']),
    },
    {
      name: 'a writer on another node that was closed needs no fence',
      log: [rec('session.created', 0, { node: 'n1' }), rec('event.sent', 1, { stream: 'g1', eventId: '1', node: 'n2' }), rec('stream.closed', 2, { stream: 'g1', node: 'n2' })],
      request: { lastEventId: '1', node: 'n1' },
      expect: { ...resumes([]), fence: [] },
    },
  ]);
});

describe('decide', () => {
  it('answers 404 for a session id with no state at all', () => {
    expect(decide(undefined, { sessionId: 'S9', lastEventId: null, tsMs: at(1) })).toMatchObject({ decision: 'reject', status: 404 });
  });

  it('does not let one session\'s state answer for another session id', () => {
    const s1 = stateOf(liveSessionWithEvents(3));
    expect(decide(s1, { sessionId: 'S1', lastEventId: null, tsMs: at(9) })).toMatchObject({ decision: 'attach' });
    expect(decide(s1, { sessionId: 'S2', lastEventId: null, tsMs: at(9) })).toMatchObject({ decision: 'reject', status: 404 });
  });

  it('never shares arrays between decisions', () => {
    const first = decide(undefined, { sessionId: null, lastEventId: null, tsMs: at(1), isInitialize: true });
    first.replay.push('x');
    expect(decide(undefined, { sessionId: null, lastEventId: null, tsMs: at(1), isInitialize: true }).replay).toEqual([]);
  });
});
