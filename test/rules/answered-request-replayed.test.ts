import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const created = { ts: at(0), kind: 'session.created', session: 'S1', principal: 'alice' };
const opened = { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' };
const sent = (ms: number, id: number) => ({ ts: at(ms), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: id });
const requestEvent = (ms: number, id: number, req: string) => ({
  ts: at(ms), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: id, rpc_kind: 'request', rpc_id: req, method: 'sampling/createMessage',
});
const requestSent = (ms: number, id: number, req: string) => ({
  ts: at(ms), kind: 'request.sent', session: 'S1', stream: 'g1', request_id: req, method: 'sampling/createMessage', event_id: id,
});
const answered = (ms: number, req: string, status: number) => ({ ts: at(ms), kind: 'request.answered', session: 'S1', request_id: req, status });
const resume = (ms: number, from: number) => ({
  ts: at(ms), kind: 'upgrade', session: 'S1', last_event_id: from, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 2, reemitted: 0,
});

describe('answered-request-replayed', () => {
  it('flags a resumption whose replay window holds an answered server request', async () => {
    const report = await analyzeLines([
      created,
      opened,
      sent(100, 1006),
      requestEvent(200, 1007, 'req-42'),
      requestSent(200, 1007, 'req-42'),
      answered(500, 'req-42', 200),
      sent(600, 1008),
      resume(1000, 1006),
    ]);
    const [f, ...rest] = findingsOf(report, 'answered-request-replayed');
    expect(rest).toHaveLength(0);
    expect(f?.session).toBe('S1');
    // the cursor's stream, then the stream the resumption opened: not "from event 1006 on g2"
    expect(f?.message).toContain('resume of S1 from event 1006 on g1 (new stream g2) replays request req-42');
    expect(f?.message).toContain('req-42 (sampling/createMessage) in event 1007');
    expect(f?.message).toContain('2026-11-09T10:00:00.500Z');
    // Last-Event-ID's event, the request's event, its answer, the resumption
    expect(evidenceLines(f!)).toEqual([3, 4, 6, 8]);
  });

  it('names the stream that sent Last-Event-ID even where the resumption does not name it, and no new stream where it opened none', async () => {
    const { stream: _named, new_stream: _opened, ...unnamed } = resume(1000, 1006);
    const report = await analyzeLines([
      created, opened, sent(100, 1006), requestEvent(200, 1007, 'req-42'), requestSent(200, 1007, 'req-42'), answered(500, 'req-42', 200), sent(600, 1008), unnamed,
    ]);
    const [f, ...rest] = findingsOf(report, 'answered-request-replayed');
    expect(rest).toHaveLength(0);
    expect(f?.message).toContain('resume of S1 from event 1006 on g1 replays request req-42');
  });

  it('does not flag a 404 answer, an answer after the upgrade, or a request before Last-Event-ID', async () => {
    const report = await analyzeLines([
      created,
      opened,
      requestSent(100, 1005, 'req-40'),
      answered(150, 'req-40', 200),
      sent(160, 1006),
      requestSent(200, 1007, 'req-42'),
      answered(300, 'req-42', 404),
      requestSent(400, 1008, 'req-43'),
      resume(1000, 1006),
      answered(1100, 'req-43', 200),
    ]);
    expect(findingsOf(report, 'answered-request-replayed')).toEqual([]);
  });

  it('places Last-Event-ID on the stream the resumption names when the server sent that id on another stream later', async () => {
    // A server counting event ids per stream sends each id on every stream: the named stream's emission is the anchor, not the latest.
    const sameIdOnAPostLater = (named: string) => [
      created, opened, sent(100, 1006), requestEvent(200, 1007, 'req-42'), requestSent(200, 1007, 'req-42'),
      { ts: at(250), kind: 'stream.opened', session: 'S1', stream: 'p1', via: 'post' },
      { ts: at(300), kind: 'event.sent', session: 'S1', stream: 'p1', event_id: 1006 },
      answered(500, 'req-42', 200), { ...resume(1000, 1006), stream: named },
    ];
    const [f, ...rest] = findingsOf(await analyzeLines(sameIdOnAPostLater('g1')), 'answered-request-replayed');
    expect(rest).toHaveLength(0);
    expect(evidenceLines(f!)).toEqual([3, 4, 8, 9]);
    // Named elsewhere, the latest emission (on p1, whose lane holds no request) is the anchor: nothing replayed.
    const elsewhere = await analyzeLines(sameIdOnAPostLater('p9'));
    expect(findingsOf(elsewhere, 'answered-request-replayed')).toEqual([]);
  });

  it('is not knowable from a proxy log', async () => {
    const report = await analyzeLines([
      { ts: at(1000), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'P1', 'last-event-id': '9' }, resp_headers: { 'content-type': 'text/event-stream' } },
    ]);
    expect(report.not_knowable.filter((n) => n.rule === 'answered-request-replayed')).toEqual([
      { rule: 'answered-request-replayed', session: 'P1', reason: expect.stringMatching(/proxy log only/) },
    ]);
  });
});
