import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createRecorder, instrumentEventStore, type ResumptionRecord } from '../../src/instrument/index.js';
import { OrderedEventStore } from '../e2e/support/ordered-event-store.js';

// The wrapper on its own, outside any HTTP request: what it passes through,
// and what it can still log.

const sampling: JSONRPCMessage = { jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } };
const note: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } };

function setup(inner: EventStore = new OrderedEventStore()): { store: EventStore; records: ResumptionRecord[] } {
  const records: ResumptionRecord[] = [];
  return { store: instrumentEventStore(inner, createRecorder((r) => records.push(r), { node: 'n1' })), records };
}

describe('instrumentEventStore without the request middleware', () => {
  it("returns the wrapped store's ids and replays its messages unchanged", async () => {
    const { store } = setup();
    const first = await store.storeEvent('s1', note);
    const second = await store.storeEvent('s1', sampling);
    const replayed: [string, JSONRPCMessage][] = [];
    const stream = await store.replayEventsAfter(first, { send: async (id, m) => void replayed.push([id, m]) });
    expect(stream).toBe('s1');
    expect(replayed).toEqual([[second, sampling]]);
  });

  it('logs each stored event, a server request also as request.sent naming its event, on the SDK stream it has no body for', async () => {
    const { store, records } = setup();
    const id = await store.storeEvent('_GET_stream', sampling);
    expect(records.map((r) => r.kind)).toEqual(['event.sent', 'request.sent']);
    expect(records[0]).toMatchObject({
      stream: 'unbound:_GET_stream',
      sequence: '_GET_stream',
      event_id: id,
      rpc_kind: 'request',
      rpc_id: 7,
      method: 'sampling/createMessage',
      attached: false,
    });
    expect(records[1]).toMatchObject({ request_id: 7, method: 'sampling/createMessage', event_id: id });
    // No request in flight, no session ever seen: the line says so by lacking one.
    expect(records[0]).not.toHaveProperty('session');
  });

  it('logs a replay as a resume with what the store sent, without an HTTP status it cannot see', async () => {
    const { store, records } = setup();
    const first = await store.storeEvent('s1', note);
    const second = await store.storeEvent('s1', note);
    await store.replayEventsAfter(first, { send: async () => {} });
    const upgrade = records.find((r) => r.kind === 'upgrade');
    expect(upgrade).toMatchObject({ decision: 'resume', last_event_id: first, sequence: 's1', replayed: 1, first_replayed: second, replayed_ids: [second] });
    expect(upgrade).not.toHaveProperty('status');
  });

  it("passes the store's failure on, and logs the reconnect as rejected", async () => {
    const { store, records } = setup();
    await expect(store.replayEventsAfter('nope', { send: async () => {} })).rejects.toThrow('unknown event id nope');
    expect(records.find((r) => r.kind === 'upgrade')).toMatchObject({ decision: 'reject', last_event_id: 'nope', reason: 'replay_failed: unknown event id nope' });
  });

  it('offers getStreamIdForEventId exactly when the wrapped store does', async () => {
    expect(setup().store.getStreamIdForEventId).toBeUndefined();
    const inner = new OrderedEventStore() as EventStore;
    inner.getStreamIdForEventId = async (id) => (id === 'known' ? 's9' : undefined);
    const { store } = setup(inner);
    expect(await store.getStreamIdForEventId?.('known')).toBe('s9');
    expect(await store.getStreamIdForEventId?.('other')).toBeUndefined();
  });

  it('logs a server timeout as request.timed_out, any other cancellation as request.cancelled', async () => {
    const { store, records } = setup();
    const cancel = (requestId: number, reason: string): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } });
    await store.storeEvent('_GET_stream', cancel(1, 'McpError: MCP error -32001: Request timed out'));
    await store.storeEvent('_GET_stream', cancel(2, 'AbortError: the user gave up'));
    expect(records.filter((r) => r.kind.startsWith('request.')).map((r) => [r.kind, r.request_id, r.reason])).toEqual([
      ['request.timed_out', 1, undefined],
      ['request.cancelled', 2, 'AbortError: the user gave up'],
    ]);
  });
});
