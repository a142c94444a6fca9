import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { at } from '../helpers/logs.js';
import { ingestFiles, ingestLines, rows, tempDir } from './support.js';

// Derived requests (sent until their first resolution) and incarnations (a
// session.created until its first end). Record ids are line numbers here.

const S = { session: 'S1' };
const reqSent = (ms: number, id: string) => ({ ts: at(ms), kind: 'request.sent', ...S, stream: 'g1', request_id: id, method: 'elicitation/create' });

describe('request lifecycle', () => {
  it('a 2xx answer resolves the request', async () => {
    const { db } = await ingestLines([reqSent(0, 'r1'), { ts: at(5), kind: 'request.answered', ...S, request_id: 'r1', status: 202 }]);
    expect(rows(db, 'SELECT request_id, sent_id, answered_id, answered_ts, resolved_ts FROM requests')).toEqual([
      { request_id: 'r1', sent_id: 1, answered_id: 2, answered_ts: Date.parse(at(5)), resolved_ts: Date.parse(at(5)) },
    ]);
  });

  it('a 404 answer leaves the request pending; a later 2xx answer resolves it', async () => {
    const { db } = await ingestLines([
      reqSent(0, 'r1'),
      { ts: at(5), kind: 'request.answered', ...S, request_id: 'r1', status: 404 },
      reqSent(10, 'r2'),
      { ts: at(15), kind: 'request.answered', ...S, request_id: 'r2', status: 404 },
      { ts: at(20), kind: 'request.answered', ...S, request_id: 'r2', status: 200 },
    ]);
    expect(rows(db, 'SELECT request_id, answered_id, resolved_ts FROM requests ORDER BY sent_id')).toEqual([
      { request_id: 'r1', answered_id: null, resolved_ts: null },
      { request_id: 'r2', answered_id: 5, resolved_ts: Date.parse(at(20)) },
    ]);
  });

  it("a proxy's 404 on the answering POST leaves the request pending too", async () => {
    const { db } = await ingestFiles({
      'server.ndjson': [reqSent(0, 'r1')],
      'proxy.ndjson': [
        { ts: at(5), kind: 'http', method: 'POST', path: '/mcp', status: 404, rpc_kind: 'response', rpc_id: 'r1', req_headers: { 'mcp-session-id': 'S1' }, resp_headers: {} },
      ],
    });
    expect(rows(db, 'SELECT answered_id, resolved_ts FROM requests')).toEqual([{ answered_id: null, resolved_ts: null }]);
    expect(rows(db, "SELECT status, origin FROM records WHERE kind = 'request.answered'")).toEqual([{ status: 404, origin: 'proxy' }]);
  });

  it('cancelled and re-issued resolve it; timed out is recorded but resolves nothing', async () => {
    const { db } = await ingestLines([
      reqSent(0, 'r1'),
      reqSent(0, 'r2'),
      reqSent(0, 'r3'),
      { ts: at(5), kind: 'request.cancelled', ...S, request_id: 'r1', reason: 'session_reset' },
      { ts: at(6), kind: 'request.reissued', ...S, request_id: 'r2', new_request_id: 'r2b', stream: 'g2' },
      { ts: at(7), kind: 'request.timed_out', ...S, request_id: 'r3' },
    ]);
    expect(rows(db, 'SELECT request_id, cancelled_id, reissued_id, timed_out_id, resolved_ts FROM requests ORDER BY sent_id')).toEqual([
      { request_id: 'r1', cancelled_id: 4, reissued_id: null, timed_out_id: null, resolved_ts: Date.parse(at(5)) },
      { request_id: 'r2', cancelled_id: null, reissued_id: 5, timed_out_id: null, resolved_ts: Date.parse(at(6)) },
      { request_id: 'r3', cancelled_id: null, reissued_id: null, timed_out_id: 6, resolved_ts: null },
      // "re-issued on another stream under a fresh id": the fresh id is a request of its own, pending.
      { request_id: 'r2b', cancelled_id: null, reissued_id: null, timed_out_id: null, resolved_ts: null },
    ]);
    expect(rows(db, "SELECT sent_id, stream FROM requests WHERE request_id = 'r2b'")).toEqual([{ sent_id: 5, stream: 'g2' }]);
  });

  it('a re-issue and the send of its fresh id are one request', async () => {
    const { db } = await ingestLines([
      reqSent(0, 'r2'),
      { ts: at(6), kind: 'request.reissued', ...S, request_id: 'r2', new_request_id: 'r2b', stream: 'g2' },
      { ts: at(6), kind: 'request.sent', ...S, stream: 'g2', request_id: 'r2b', method: 'sampling/createMessage' },
      { ts: at(9), kind: 'request.answered', ...S, request_id: 'r2b', status: 200 },
    ]);
    expect(rows(db, 'SELECT request_id, sent_id, stream, answered_id FROM requests ORDER BY sent_id')).toEqual([
      { request_id: 'r2', sent_id: 1, stream: 'g1', answered_id: null },
      { request_id: 'r2b', sent_id: 3, stream: 'g2', answered_id: 4 },
    ]);
  });

  it('an answer belongs to the latest send of that id before it', async () => {
    const { db } = await ingestLines([
      reqSent(0, 'r1'),
      { ts: at(5), kind: 'request.answered', ...S, request_id: 'r1', status: 200 },
      reqSent(10, 'r1'),
    ]);
    expect(rows(db, 'SELECT sent_id, answered_id FROM requests ORDER BY sent_id')).toEqual([
      { sent_id: 1, answered_id: 2 },
      { sent_id: 3, answered_id: null },
    ]);
  });
});

describe('incarnations', () => {
  const created = (ms: number, extra: Record<string, unknown> = {}) => ({ ts: at(ms), kind: 'session.created', ...S, ...extra });

  it('an eviction ends it with log_evicted true by default, false when the log was kept', async () => {
    const { db } = await ingestFiles({
      'a.ndjson': [created(0), { ts: at(10), kind: 'session.evicted', ...S, reason: 'idle_timeout' }],
      'b.ndjson': [{ ts: at(0), kind: 'session.created', session: 'S2' }, { ts: at(10), kind: 'session.evicted', session: 'S2', log_evicted: false }],
    });
    expect(rows(db, 'SELECT session, ended_how, ended_ts, log_evicted FROM incarnations ORDER BY session')).toEqual([
      { session: 'S1', ended_how: 'evicted', ended_ts: Date.parse(at(10)), log_evicted: 1 },
      { session: 'S2', ended_how: 'evicted', ended_ts: Date.parse(at(10)), log_evicted: 0 },
    ]);
  });

  it('a termination ends it; the first end counts', async () => {
    const { db } = await ingestLines([
      created(0),
      { ts: at(10), kind: 'session.terminated', ...S, reason: 'client_delete' },
      { ts: at(20), kind: 'session.evicted', ...S },
    ]);
    expect(rows(db, 'SELECT ended_id, ended_how FROM incarnations')).toEqual([{ ended_id: 2, ended_how: 'terminated' }]);
  });

  it('one session id created twice is two incarnations, each ended by the end after it', async () => {
    const { db } = await ingestLines([
      created(0, { incarnation: 'i-1', node: 'n1' }),
      { ts: at(10), kind: 'session.evicted', ...S, log_evicted: false },
      created(20, { incarnation: 'i-2', node: 'n2' }),
    ]);
    expect(rows(db, 'SELECT created_id, incarnation, node, ended_id, log_evicted FROM incarnations ORDER BY created_id')).toEqual([
      { created_id: 1, incarnation: 'i-1', node: 'n1', ended_id: 2, log_evicted: 0 },
      { created_id: 3, incarnation: 'i-2', node: 'n2', ended_id: null, log_evicted: null },
    ]);
  });

  it("the owner is the creation's principal, else the first principal logged for the session", async () => {
    const { db } = await ingestFiles({
      'a.ndjson': [
        created(0, { principal: 'alice' }),
        { ts: at(1), kind: 'stream.opened', ...S, stream: 'g1', via: 'get', principal: 'mallory' },
        { ts: at(0), kind: 'session.created', session: 'S2' },
        { ts: at(2), kind: 'stream.opened', session: 'S2', stream: 'g1', via: 'get', principal: 'bob' },
        { ts: at(3), kind: 'stream.opened', session: 'S2', stream: 'g2', via: 'get', principal: 'carol' },
      ],
    });
    expect(rows(db, 'SELECT session, owner FROM incarnations ORDER BY session')).toEqual([
      { session: 'S1', owner: 'alice' },
      { session: 'S2', owner: 'bob' },
    ]);
  });

  it('an end logged in a later run, into the same --db, ends the incarnation', async () => {
    const dbPath = join(tempDir(), 'timeline.db');
    const first = await ingestFiles({ 'day1.ndjson': [created(0)] }, { db: dbPath });
    expect(rows(first.db, 'SELECT ended_how FROM incarnations')).toEqual([{ ended_how: null }]);
    first.db.close();
    const second = await ingestFiles({ 'day2.ndjson': [{ ts: at(10), kind: 'session.evicted', ...S }] }, { db: dbPath });
    expect(rows(second.db, 'SELECT ended_how, log_evicted FROM incarnations')).toEqual([{ ended_how: 'evicted', log_evicted: 1 }]);
  });
});
