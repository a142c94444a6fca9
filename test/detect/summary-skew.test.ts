import { describe, expect, it } from 'vitest';
import { analyzeLines, at } from '../helpers/logs.js';

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
});
