import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { at } from '../helpers/logs.js';
import { ingestLines, rows } from './support.js';

// Derived streams and events (schema.ts): a resumption continues a stream's
// lane on a new response; an accepted upgrade supersedes what it replaces
// (rules.md "superseded"); events are numbered in emission order per lane.

const opened = (ms: number, stream: string, via = 'get') => ({ ts: at(ms), kind: 'stream.opened', session: 'S1', stream, via });
const sent = (ms: number, stream: string, id: number, extra: Record<string, unknown> = {}) => ({ ts: at(ms), kind: 'event.sent', session: 'S1', stream, event_id: id, ...extra });
const upgrade = (ms: number, fields: Record<string, unknown>) => ({ ts: at(ms), kind: 'upgrade', session: 'S1', status: 200, ...fields });

function streams(db: Db) {
  return rows<{ stream: string; lane: string; via: string; superseded_id: number | null }>(db, 'SELECT stream, lane, via, superseded_id FROM streams ORDER BY stream');
}

/** Record ids are insertion order: line n of the single test file is id n. */
describe('lanes', () => {
  it('a resumption continues the lane on the new stream, and events number on across it', async () => {
    const { db } = await ingestLines([
      opened(0, 'g1'),
      sent(1, 'g1', 1),
      sent(2, 'g1', 2),
      sent(3, 'g1', 3),
      upgrade(10, { last_event_id: 2, stream: 'g1', new_stream: 'g2', decision: 'resume', replayed: 1 }),
      sent(11, 'g2', 4),
      sent(12, 'g2', 5),
    ]);
    expect(streams(db)).toEqual([
      { stream: 'g1', lane: 'g1', via: 'get', superseded_id: 5 },
      { stream: 'g2', lane: 'g1', via: 'get', superseded_id: null },
    ]);
    expect(rows(db, 'SELECT stream, opened_id FROM streams ORDER BY stream')).toEqual([
      { stream: 'g1', opened_id: 1 },
      { stream: 'g2', opened_id: 5 },
    ]);
    expect(rows(db, 'SELECT event_id, stream, lane, lane_pos FROM events ORDER BY lane_pos')).toEqual(
      [['1', 'g1'], ['2', 'g1'], ['3', 'g1'], ['4', 'g2'], ['5', 'g2']].map(([event_id, stream], i) => ({ event_id, stream, lane: 'g1', lane_pos: i + 1 })),
    );
  });

  it('follows a chain of resumptions', async () => {
    const { db } = await ingestLines([
      opened(0, 'g1'),
      sent(1, 'g1', 1),
      upgrade(10, { last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'resume' }),
      sent(11, 'g2', 2),
      upgrade(20, { last_event_id: 2, new_stream: 'g3', decision: 'resume' }),
      sent(21, 'g3', 3),
    ]);
    expect(streams(db).map((s) => [s.stream, s.lane])).toEqual([
      ['g1', 'g1'],
      ['g2', 'g1'],
      ['g3', 'g1'],
    ]);
    expect(rows(db, 'SELECT event_id, lane_pos FROM events ORDER BY lane_pos')).toEqual([
      { event_id: '1', lane_pos: 1 },
      { event_id: '2', lane_pos: 2 },
      { event_id: '3', lane_pos: 3 },
    ]);
  });

  it('a rejected resumption links nothing and supersedes nothing', async () => {
    const { db } = await ingestLines([
      opened(0, 'g1'),
      sent(1, 'g1', 1),
      upgrade(10, { last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'reject', status: 409, reason: 'resumption_unavailable' }),
    ]);
    expect(streams(db).map((s) => [s.stream, s.lane, s.superseded_id])).toEqual([
      ['g1', 'g1', null],
      ['g2', 'g2', null],
    ]);
  });

  it('`sequence` names the lane explicitly', async () => {
    const { db } = await ingestLines([
      { ...opened(0, 'a'), sequence: 'L7' },
      { ...opened(5, 'b'), sequence: 'L7' },
      opened(6, 'c'),
    ]);
    expect(streams(db).map((s) => [s.stream, s.lane])).toEqual([
      ['a', 'L7'],
      ['b', 'L7'],
      ['c', 'c'],
    ]);
  });

  it('an unattached event belongs to its stream, marked as such', async () => {
    const { db } = await ingestLines([opened(0, 'g1'), sent(1, 'g1', 1), sent(2, 'g1', 2, { attached: false })]);
    expect(rows(db, 'SELECT event_id, attached, lane_pos FROM events ORDER BY lane_pos')).toEqual([
      { event_id: '1', attached: 1, lane_pos: 1 },
      { event_id: '2', attached: 0, lane_pos: 2 },
    ]);
  });

  it('a request.sent and the event.sent that carried it are one emission', async () => {
    const { db } = await ingestLines([
      opened(0, 'g1'),
      sent(1, 'g1', 1, { rpc_kind: 'request', rpc_id: 'r1', method: 'sampling/createMessage' }),
      { ts: at(1), kind: 'request.sent', session: 'S1', stream: 'g1', request_id: 'r1', method: 'sampling/createMessage', event_id: 1 },
      { ts: at(2), kind: 'request.sent', session: 'S1', stream: 'g1', request_id: 'r2', method: 'roots/list', event_id: 2 },
    ]);
    expect(rows(db, 'SELECT id, event_id, request_id, method, lane_pos FROM events ORDER BY lane_pos')).toEqual([
      { id: 2, event_id: '1', request_id: 'r1', method: 'sampling/createMessage', lane_pos: 1 },
      { id: 4, event_id: '2', request_id: 'r2', method: 'roots/list', lane_pos: 2 },
    ]);
  });

  it('records close and fence on the stream', async () => {
    const { db } = await ingestLines([
      opened(0, 'g1'),
      { ts: at(5), kind: 'stream.fenced', session: 'S1', stream: 'g1' },
      { ts: at(6), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'fenced' },
      { ts: at(7), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'error' },
    ]);
    expect(rows(db, 'SELECT fenced_id, closed_id, close_reason FROM streams')).toEqual([{ fenced_id: 2, closed_id: 3, close_reason: 'fenced' }]);
  });
});

describe('supersession', () => {
  it('a resumption supersedes the stream it resumes and the stream that emitted last_event_id', async () => {
    const { db } = await ingestLines([
      opened(0, 'g1'),
      sent(1, 'g1', 1),
      opened(2, 'g2'),
      upgrade(10, { last_event_id: 1, stream: 'g2', new_stream: 'g3', decision: 'resume' }),
    ]);
    expect(streams(db).map((s) => [s.stream, s.superseded_id])).toEqual([
      ['g1', 4],
      ['g2', 4],
      ['g3', null],
    ]);
  });

  it('an attach supersedes every earlier GET stream, not POST streams or later ones', async () => {
    const { db } = await ingestLines([
      opened(0, 'g1'),
      opened(1, 'g2'),
      opened(2, 'p1', 'post'),
      upgrade(10, { last_event_id: null, new_stream: 'g3', decision: 'attach' }),
      opened(20, 'g4'),
    ]);
    expect(streams(db).map((s) => [s.stream, s.via, s.superseded_id])).toEqual([
      ['g1', 'get', 4],
      ['g2', 'get', 4],
      ['g3', 'get', null],
      ['g4', 'get', null],
      ['p1', 'post', null],
    ]);
  });

  it('a POST response stream is superseded by a resumption of it', async () => {
    const { db } = await ingestLines([
      opened(0, 'p1', 'post'),
      sent(1, 'p1', 1),
      upgrade(10, { last_event_id: 1, new_stream: 'g2', decision: 'resume' }),
    ]);
    expect(streams(db).map((s) => [s.stream, s.lane, s.superseded_id])).toEqual([
      ['g2', 'p1', null],
      ['p1', 'p1', 3],
    ]);
  });

  it('names the first upgrade that superseded the stream', async () => {
    const { db } = await ingestLines([
      opened(0, 'g1'),
      upgrade(10, { new_stream: 'g2', decision: 'attach' }),
      upgrade(20, { new_stream: 'g3', decision: 'attach' }),
    ]);
    expect(streams(db).map((s) => [s.stream, s.superseded_id])).toEqual([
      ['g1', 2],
      ['g2', 3],
      ['g3', null],
    ]);
  });

  it('a rejected or fresh upgrade supersedes nothing', async () => {
    const { db } = await ingestLines([
      opened(0, 'g1'),
      upgrade(10, { new_stream: 'g2', decision: 'attach', status: 409 }),
      upgrade(20, { session: 'S1', new_session: 'S2', decision: 'fresh' }),
    ]);
    expect(streams(db).map((s) => s.superseded_id)).toEqual([null, null]);
  });

  it('a stream id reused across a resumption (TypeScript SDK) is not superseded by that resumption, but by a later attach', async () => {
    const { db } = await ingestLines([
      opened(0, 'g1'),
      sent(1, 'g1', 1),
      upgrade(10, { last_event_id: 1, stream: 'g1', new_stream: 'g1', decision: 'resume' }),
      sent(11, 'g1', 2),
      upgrade(20, { new_stream: 'g2', decision: 'attach' }),
    ]);
    expect(streams(db).map((s) => [s.stream, s.superseded_id])).toEqual([
      ['g1', 5],
      ['g2', null],
    ]);
  });
});
