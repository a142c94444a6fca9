import { describe, expect, it } from 'vitest';
import { analyzeLines, at, type LogLine } from '../helpers/logs.js';

// summary.nodes[node].skew_ms: the largest causality inversion against a node (a lower bound on how far
// behind its clock runs), read by on-call engineers before they trust cross-node orderings.
describe('summary: clock skew per node', () => {
  it('a node that logs a replay before another node logged sending the event runs behind by the largest gap', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'S1', node: 'a' },
      { ts: at(0), kind: 'stream.opened', session: 'S1', stream: 'g1', node: 'a', via: 'get' },
      { ts: at(5), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'e1', node: 'a' },
      { ts: at(9), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'e1', node: 'a' },
      { ts: at(2), kind: 'event.replayed', session: 'S1', stream: 'g1', event_id: 'e1', node: 'b' },
    ]);
    expect(report.summary.nodes.b).toEqual({ records: 1, skew_ms: -7 });
    expect(report.summary.nodes.a).toEqual({ records: 4 });
  });

  it('an answer logged before another node logged sending the request counts too, by request id', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'S1', node: 'a' },
      { ts: at(4), kind: 'request.sent', session: 'S1', stream: 'g1', request_id: 'r1', method: 'sampling/createMessage', event_id: 'e9', node: 'a' },
      { ts: at(1), kind: 'request.answered', session: 'S1', request_id: 'r1', status: 202, node: 'b' },
    ]);
    expect(report.summary.nodes.b).toEqual({ records: 1, skew_ms: -3 });
  });

  it('no skew where the order is causal, the node is the same, the id differs or the session differs', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'S1', node: 'a' },
      { ts: at(0), kind: 'session.created', session: 'S2', node: 'a' },
      { ts: at(5), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'e1', node: 'a' },
      { ts: at(6), kind: 'event.replayed', session: 'S1', stream: 'g1', event_id: 'e1', node: 'b' }, // after: causal
      { ts: at(3), kind: 'event.replayed', session: 'S1', stream: 'g1', event_id: 'e2', node: 'b' }, // another id
      { ts: at(3), kind: 'event.replayed', session: 'S2', stream: 'g1', event_id: 'e1', node: 'b' }, // another session
      { ts: at(3), kind: 'event.replayed', session: 'S1', stream: 'g1', event_id: 'e1', node: 'a' }, // same node
      { ts: at(8), kind: 'request.sent', session: 'S1', stream: 'g1', request_id: 'r1', method: 'sampling/createMessage', event_id: 'e1', node: 'a' },
      { ts: at(2), kind: 'event.replayed', session: 'S1', stream: 'g1', event_id: 'r1', node: 'b' }, // an event id is not a request id
    ]);
    expect(report.summary.nodes.b).toEqual({ records: 4 });
  });

  // The client held the event its Last-Event-ID names: node b, which took the resumption, logged it before node a logged the send.
  const resumedFrom = (sentMs: number, extra: LogLine[] = []): LogLine[] => [
    { ts: at(0), kind: 'session.created', session: 'S1', node: 'a' },
    { ts: at(0), kind: 'stream.opened', session: 'S1', stream: 'g1', node: 'a', via: 'get' },
    { ts: at(sentMs), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'e1', node: 'a' },
    ...extra,
    { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: 'e1', stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0, node: 'b' },
  ];

  it('a resumption logged before another node logged sending the event it names counts too', async () => {
    const report = await analyzeLines(resumedFrom(1300));
    expect(report.summary.nodes.b).toEqual({ records: 1, skew_ms: -300 });
  });

  // The events an upgrade names replayed had been sent too: the largest gap among them is the estimate.
  const replayed = (fields: Record<string, unknown>, e3Ms: number, e2Ms = 1200): LogLine[] => [
    { ts: at(0), kind: 'session.created', session: 'S1', node: 'a' },
    { ts: at(0), kind: 'stream.opened', session: 'S1', stream: 'g1', node: 'a', via: 'get' },
    { ts: at(500), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'e1', node: 'a' },
    { ts: at(e2Ms), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'e2', node: 'a', attached: false },
    { ts: at(e3Ms), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'e3', node: 'a', attached: false },
    { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: 'e1', stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 2, node: 'b', ...fields },
  ];

  it('the events a resumption names replayed (first_replayed, replayed_ids) count as well, by the largest gap', async () => {
    expect((await analyzeLines(replayed({ first_replayed: 'e2' }, 1400))).summary.nodes.b).toEqual({ records: 1, skew_ms: -200 });
    expect((await analyzeLines(replayed({ replayed_ids: ['e2', 'e3'] }, 3500))).summary.nodes.b).toEqual({ records: 1, skew_ms: -2500 });
  });

  it('a replayed event\'s send proves the skew beyond the clock-skew allowance too (it cannot be replayed before it was written)', async () => {
    expect((await analyzeLines(replayed({ replayed_ids: ['e2', 'e3'] }, 13_000))).summary.nodes.b).toEqual({ records: 1, skew_ms: -12_000 });
  });

  it('near miss: replayed events sent before the replay show no skew', async () => {
    const causal = replayed({ first_replayed: 'e2', replayed_ids: ['e2', 'e3'] }, 900, 800);
    expect((await analyzeLines(causal)).summary.nodes.b).toEqual({ records: 1 });
  });

  it('near misses: a send beyond the clock-skew allowance, or the same id sent on another stream, proves nothing', async () => {
    expect((await analyzeLines(resumedFrom(11_001))).summary.nodes.b).toEqual({ records: 1 });
    const otherStream = resumedFrom(500, [{ ts: at(1300), kind: 'event.sent', session: 'S1', stream: 'g5', event_id: 'e1', node: 'a' }]);
    expect((await analyzeLines(otherStream)).summary.nodes.b).toEqual({ records: 1 });
  });
});
