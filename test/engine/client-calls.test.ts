// Client requests and their responses: delivered on the body the request opened,
// rescued by a resumption after that body broke, or lost; and what each revision
// makes of a broken stream.

import { describe, expect, it } from 'vitest';
import { REVISION_RULES, callFate, reissueOf, type ClientCall, type EngineRecord } from '../../src/engine/index.js';
import { rec, stateOf } from './log.js';

const LEGACY = REVISION_RULES['2025-11-25'];
const STATELESS = REVISION_RULES['2026-07-28'];

function callsOf(records: EngineRecord[]): ClientCall[] {
  return stateOf(records).incarnations.at(-1)!.calls;
}

const created = rec('session.created', 0, { principal: 'alice' });
const opened = (s: number, stream: string) => rec('stream.opened', s, { stream, via: 'post' });
const call = (s: number, rpcId: number, fields: Partial<EngineRecord> = {}) => rec('call', s, { rpcId, method: 'tools/call', tool: 'charge', status: 200, ...fields });
const event = (s: number, stream: string, eventId: string, fields: Partial<EngineRecord> = {}) => rec('event.sent', s, { stream, eventId, ...fields });
const response = (s: number, stream: string, eventId: string, rpcId: number, fields: Partial<EngineRecord> = {}) =>
  event(s, stream, eventId, { rpcKind: 'response', rpcId, ...fields });
const closed = (s: number, stream: string, reason: string) => rec('stream.closed', s, { stream, reason });
const resume = (s: number, lastEventId: string, stream: string, newStream: string, status = 200) =>
  rec('upgrade', s, { lastEventId, stream, newStream, decision: 'resume', status });

describe('a response written live on its own stream', () => {
  const log = [created, opened(1, 'p1'), call(1, 7), event(1, 'p1', 'e1'), response(2, 'p1', 'e2', 7), closed(3, 'p1', 'server')];

  it('is delivered under every revision, and never re-issued', () => {
    const [c] = callsOf(log);
    expect(c).toMatchObject({ rpcId: '7', method: 'tools/call', tool: 'charge', executed: true, pos: 2, response: { eventId: 'e2', deliveredLive: true } });
    expect(callFate(c!, LEGACY)).toBe('delivered');
    expect(callFate(c!, STATELESS)).toBe('delivered');
    expect(reissueOf(c!, STATELESS)).toEqual({ reissued: false, runTwice: false });
  });
});

describe('a response stream that broke before its response', () => {
  const broken = [created, opened(1, 'p1'), call(1, 7), event(1, 'p1', 'e1'), closed(2, 'p1', 'error'), response(4, 'p1', 'e2', 7, { attached: false })];

  it('rescued by a resumption from before the response: rescued as logged, lost and run twice under 2026-07-28', () => {
    const [c] = callsOf([...broken, resume(6, 'e1', 'p1', 'g2'), rec('stream.opened', 6, { stream: 'g2', via: 'get' })]);
    expect(c!.response).toMatchObject({ deliveredLive: false, broke: { how: 'closed', reason: 'error', pos: 4 }, rescuedBy: 6 });
    expect(callFate(c!, LEGACY)).toBe('rescued');
    expect(callFate(c!, STATELESS)).toBe('lost');
    expect(reissueOf(c!, LEGACY)).toEqual({ reissued: false, runTwice: false });
    expect(reissueOf(c!, STATELESS)).toEqual({ reissued: true, runTwice: true });
  });

  it('near miss: a resumption from the response itself replays nothing of it, and a rejected one rescues nothing', () => {
    expect(callFate(callsOf([...broken, resume(6, 'e2', 'p1', 'g2')])[0]!, LEGACY)).toBe('lost');
    expect(callFate(callsOf([...broken, resume(6, 'e1', 'p1', 'g2', 409)])[0]!, LEGACY)).toBe('lost');
  });

  it('never resumed: lost under every revision; only the stateless client re-issues it', () => {
    const [c] = callsOf(broken);
    expect(callFate(c!, LEGACY)).toBe('lost');
    expect(reissueOf(c!, LEGACY).reissued).toBe(false);
    expect(reissueOf(c!, STATELESS)).toEqual({ reissued: true, runTwice: true });
  });

  it('a response that came on the resumed stream was rescued by the resumption that opened it', () => {
    const log = [created, opened(1, 'p1'), call(1, 7), event(1, 'p1', 'e1'), closed(2, 'p1', 'poll'), resume(4, 'e1', 'p1', 'g2'), response(5, 'g2', 'e2', 7)];
    const [c] = callsOf(log);
    expect(c!.response).toMatchObject({ deliveredLive: false, broke: { how: 'closed', reason: 'poll' }, rescuedBy: 5 });
    expect(callFate(c!, LEGACY)).toBe('rescued');
    expect(callFate(c!, STATELESS)).toBe('lost');
  });

  it('a response written after a resumption superseded its stream is broken by that supersession', () => {
    const log = [created, opened(1, 'p1'), call(1, 7), event(1, 'p1', 'e1'), resume(3, 'e1', 'p1', 'g2'), response(4, 'p1', 'e2', 7)];
    expect(callsOf(log)[0]!.response).toMatchObject({ deliveredLive: false, broke: { how: 'superseded', pos: 4 } });
  });

  it('an unattached response on a body never logged closed is broken too', () => {
    const [c] = callsOf([created, opened(1, 'p1'), call(1, 7), response(2, 'p1', 'e1', 7, { attached: false })]);
    expect(c!.response).toMatchObject({ deliveredLive: false, broke: { how: 'unattached' } });
  });
});

describe('which lost calls run twice', () => {
  const lostWith = (fields: Partial<EngineRecord>) =>
    callsOf([created, opened(1, 'p1'), call(1, 7, fields), closed(2, 'p1', 'error'), response(3, 'p1', 'e1', 7, { attached: false })])[0]!;

  it('a tools/call the server did not execute (deduplicated) is re-issued but not run twice', () => {
    expect(reissueOf(lostWith({ executed: false }), STATELESS)).toEqual({ reissued: true, runTwice: false });
  });

  it('another method is re-issued, not counted as a tool run twice', () => {
    expect(reissueOf(lostWith({ method: 'resources/read', tool: undefined }), STATELESS)).toEqual({ reissued: true, runTwice: false });
  });

  it('a call the server answered with an error status did not execute', () => {
    expect(lostWith({ status: 500 }).executed).toBe(false);
  });
});

describe('matching responses to calls', () => {
  it('a response without a call record is a request the server ran, of unknown method', () => {
    const [c] = callsOf([created, opened(1, 'p1'), response(2, 'p1', 'e1', 3)]);
    expect(c).toMatchObject({ rpcId: '3', executed: true, response: { deliveredLive: true } });
    expect(c!.pos).toBeUndefined();
    expect(c!.method).toBeUndefined();
  });

  it('a call record logged after its response joins it rather than counting twice', () => {
    const calls = callsOf([created, opened(1, 'p1'), response(2, 'p1', 'e1', 3), call(2, 3)]);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'tools/call', pos: 3, response: { eventId: 'e1' } });
  });

  it('an rpc id used again answers the latest call; a repeated event id is not a second response', () => {
    const calls = callsOf([
      created,
      opened(1, 'p1'),
      call(1, 1),
      response(1, 'p1', 'e1', 1),
      opened(2, 'p2'),
      call(2, 1, { tool: 'other' }),
      response(3, 'p2', 'e1', 1),
      response(3, 'p2', 'e2', 1),
    ]);
    expect(calls.map((c) => [c.tool, c.response?.eventId])).toEqual([
      ['charge', 'e1'],
      ['other', 'e2'],
    ]);
  });
});

describe('several responses waiting for a resumption', () => {
  // Two POST streams, each broken before its two responses: a resumption rescues what its lane holds
  // after its Last-Event-ID, and only that; what it leaves stays waiting for a later one.
  const waiting = [
    created,
    opened(1, 'p1'), call(1, 1), call(1, 2), event(1, 'p1', 'a0'),
    opened(1, 'p2'), call(1, 3), event(1, 'p2', 'b0'),
    closed(2, 'p1', 'poll'), closed(2, 'p2', 'poll'),
    response(3, 'p1', 'a1', 1, { attached: false }), response(3, 'p1', 'a2', 2, { attached: false }),
    response(3, 'p2', 'b1', 3, { attached: false }),
  ];
  const rescuers = (log: EngineRecord[]) => callsOf(log).map((c) => c.response?.rescuedBy);

  it('a resumption from the middle of a lane rescues the responses after it; an earlier one later rescues the rest', () => {
    const fromMiddle = resume(5, 'a1', 'p1', 'g1'); // position 13
    const fromStart = resume(6, 'a0', 'p1', 'g2'); // position 14
    expect(rescuers([...waiting, fromMiddle])).toEqual([undefined, 13, undefined]);
    expect(rescuers([...waiting, fromMiddle, fromStart])).toEqual([14, 13, undefined]);
  });

  it('near miss: a resumption of the other lane, or from its last response, rescues none of them', () => {
    expect(rescuers([...waiting, resume(5, 'b1', 'p2', 'g1'), resume(6, 'a2', 'p1', 'g2')])).toEqual([undefined, undefined, undefined]);
    expect(rescuers([...waiting, resume(5, 'b0', 'p2', 'g1')])).toEqual([undefined, undefined, 13]);
  });
});
