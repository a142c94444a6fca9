import { describe, expect, it } from 'vitest';
import { analyzeLines, at, type LogLine } from '../helpers/logs.js';

// 2025-11-25 polling: the server sends a priming event (an id, empty data),
// closes the connection (reason poll, with retry), stores the response while no
// body is live, and the client resumes with Last-Event-ID and gets it replayed.
// That is the protocol working as designed: no rule may fire on it.

const V = '2025-11-25';
function polling(resume: Partial<Record<string, unknown>> = {}): LogLine[] {
  return [
    { ts: at(0), kind: 'session.created', session: 'S', principal: 'alice', protocol_version: V },
    { ts: at(10), kind: 'call', session: 'S', rpc_id: 1, method: 'tools/call', tool: 'slow', args_hash: 'h1', status: 200 },
    { ts: at(11), kind: 'stream.opened', session: 'S', stream: 'p1', via: 'post' },
    { ts: at(12), kind: 'event.sent', session: 'S', stream: 'p1', event_id: 'e0', priming: true },
    { ts: at(13), kind: 'stream.closed', session: 'S', stream: 'p1', reason: 'poll', retry_ms: 1000 },
    { ts: at(500), kind: 'event.sent', session: 'S', stream: 'p1', event_id: 'e1', rpc_kind: 'response', rpc_id: 1, attached: false },
    {
      ts: at(1013), kind: 'upgrade', session: 'S', last_event_id: 'e0', stream: 'p1', new_stream: 'p2', decision: 'resume',
      status: 200, replayed: 1, reemitted: 0, first_replayed: 'e1', principal: 'alice', ...resume,
    },
    { ts: at(1014), kind: 'stream.opened', session: 'S', stream: 'p2', via: 'get', principal: 'alice' },
    { ts: at(1015), kind: 'stream.closed', session: 'S', stream: 'p2', reason: 'server' },
    { ts: at(2000), kind: 'session.terminated', session: 'S', reason: 'client_delete' },
  ];
}

describe('correct 2025-11-25 polling', () => {
  it('priming event, poll close, response stored for replay, resumption replaying it: no finding', async () => {
    const report = await analyzeLines(polling());
    expect(report.summary.rejected_lines).toBe(0);
    expect(report.findings).toEqual([]);
    expect(report.summary.protocol_versions).toEqual({ [V]: 1 });
    // nor is the stored response left unjudged: the resumption delivered it
    expect(report.not_knowable.filter((n) => n.rule === 'stranded-response')).toEqual([]);
  });

  it('near miss: without the resumption, the stored response is stranded', async () => {
    const lines = polling().filter((l) => typeof l !== 'string' && l.kind !== 'upgrade' && l.stream !== 'p2');
    const report = await analyzeLines(lines);
    expect(report.findings.map((f) => f.rule)).toEqual(['stranded-response']);
  });

  it('near miss: closed for polling before the priming event (conformance 0.1.16 server-sse-polling), it is stranded at once', async () => {
    // The client got no event id, so it has no Last-Event-ID: all it can do is open the standalone stream.
    const attach = { last_event_id: null, stream: undefined, decision: 'attach', replayed: 0, first_replayed: undefined };
    const lines = polling(attach).filter((l) => typeof l === 'string' || l.priming !== true);
    const report = await analyzeLines(lines);
    const stranded = report.findings.filter((f) => f.rule === 'stranded-response');
    expect(stranded).toHaveLength(1);
    expect(stranded[0]!.message).toContain('stranded at once');
  });

  it('near miss: the same resumption replaying nothing is a truncation', async () => {
    const report = await analyzeLines(polling({ replayed: 0, first_replayed: undefined }));
    expect(report.findings.map((f) => f.rule)).toContain('silent-truncation');
  });
});
