import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecorder, type ResumptionRecord } from '../../src/instrument/index.js';
import { OrderedEventStore } from '../e2e/support/ordered-event-store.js';
import { startSdkServer, type RunningSdkServer } from '../e2e/support/sdk-server.js';
import { connectClient, RPC_TIMEOUT } from '../e2e/support/sdk-client.js';
import { Stoppables } from '../e2e/support/stoppables.js';
import { waitFor } from '../e2e/support/wait.js';

// The instrumentation must not change what the server does: the same raw
// exchanges get the same answers from the same SDK server with and without it.

interface Answer {
  status: number;
  contentType: string | null;
  mintsSession: boolean;
  body: string;
}

interface Exchange {
  answer: Answer;
  session: string | null;
}

const PROTOCOL = '2025-11-25';
const JSON_AND_SSE = 'application/json, text/event-stream';
const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

async function exchange(url: URL, init: RequestInit): Promise<Exchange> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(3000) });
  // Event ids are minted afresh per run; what must match is everything else.
  const body = (await res.text()).replace(/^id: .*$/gm, 'id: <event id>');
  const session = res.headers.get('mcp-session-id');
  return { answer: { status: res.status, contentType: res.headers.get('content-type'), mintsSession: session !== null, body }, session };
}

const ask = async (url: URL, init: RequestInit): Promise<Answer> => (await exchange(url, init)).answer;

/** A fixed series of exchanges, valid and not, returning every answer. */
async function converse(url: URL): Promise<Answer[]> {
  const post = (body: string, headers: Record<string, string> = {}): Promise<Answer> =>
    ask(url, { method: 'POST', body, headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, ...headers } });
  const init = await exchange(url, {
    method: 'POST',
    body: JSON.stringify(initialize),
    headers: { 'content-type': 'application/json', accept: JSON_AND_SSE },
  });
  const answers: Answer[] = [init.answer];
  const inSession = { 'mcp-session-id': init.session ?? '', 'mcp-protocol-version': PROTOCOL };
  answers.push(await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), inSession));
  answers.push(await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }), inSession));
  answers.push(await post('{"not json', inSession));
  answers.push(await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { 'mcp-session-id': 'no-such-session' }));
  answers.push(await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), { ...inSession, accept: 'application/json' }));
  // A chunked body (no Content-Length): the instrumentation leaves it unread.
  const chunked = new Blob([JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { text: 'chunked' } } })]).stream();
  answers.push(
    await ask(url, {
      method: 'POST',
      body: chunked,
      duplex: 'half',
      headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, ...inSession },
    } as RequestInit),
  );
  answers.push(await ask(url, { method: 'GET', headers: { accept: 'text/event-stream' } }));
  answers.push(await ask(url, { method: 'GET', headers: { accept: 'text/event-stream', 'last-event-id': 'e-unknown', ...inSession } }));
  // One standalone stream per session: a second GET while the first is open is refused.
  const held = new AbortController();
  const first = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', ...inSession }, signal: held.signal });
  answers.push({ status: first.status, contentType: first.headers.get('content-type'), mintsSession: first.headers.has('mcp-session-id'), body: '' });
  answers.push(await ask(url, { method: 'GET', headers: { accept: 'text/event-stream', ...inSession } }));
  held.abort();
  answers.push(await ask(url, { method: 'DELETE', headers: inSession }));
  answers.push(await post(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }), inSession));
  return answers;
}

const stop = new Stoppables();
const records: ResumptionRecord[] = [];
let plain: Answer[];
let instrumented: Answer[];

beforeAll(async () => {
  const bare = stop.add(await startSdkServer({ eventStore: () => new OrderedEventStore() }), (s) => s.close());
  plain = await converse(bare.url);
  const recorder = createRecorder((r) => records.push(r), { node: 'n1' });
  const observed = stop.add(await startSdkServer({ recorder, eventStore: () => new OrderedEventStore() }), (s) => s.close());
  instrumented = await converse(observed.url);
});

afterAll(() => stop.stopAll());

describe('instrumentation is pass-through', () => {
  it('answers every exchange exactly as the uninstrumented server does', () => {
    expect(plain.map((a) => a.status)).toEqual([200, 202, 200, 400, 404, 406, 200, 400, 500, 200, 409, 200, 404]);
    expect(plain[6]?.body).toContain('chunked');
    expect(instrumented).toEqual(plain);
  });

  it('logs what it could see of those exchanges, and nothing of the chunked body it did not read', () => {
    const calls = records.filter((r) => r.kind === 'call');
    expect(calls.map((c) => [c.rpc_id, c.status])).toEqual([
      [0, 200],
      [1, 200],
      [2, 404],
      [3, 406],
      [5, 404],
    ]);
    const upgrades = records.filter((r) => r.kind === 'upgrade').map((r) => [r.decision, r.status, r.reason]);
    expect(upgrades).toEqual([
      ['fresh', 200, undefined],
      ['reject', 400, 'Bad Request: Mcp-Session-Id header is required'],
      ['reject', 500, 'replay_failed: unknown event id e-unknown'],
      ['attach', 200, undefined],
      ['reject', 409, 'Conflict: Only one SSE stream is allowed per session'],
    ]);
    expect(records.filter((r) => r.kind === 'session.terminated')).toHaveLength(1);
  });
});

describe('express-style middleware after a body parser', () => {
  it('logs calls from the parsed body while the SDK client works as usual', async () => {
    const got: ResumptionRecord[] = [];
    const recorder = createRecorder((r) => got.push(r), { node: 'n1' });
    const server = stop.add(await startSdkServer({ recorder, eventStore: () => new OrderedEventStore(), bodyParsedFirst: true }), (s) => s.close());
    const client = stop.add(await connectClient(server.url, { principal: 'carol' }), (c) => c.close());
    const result = await client.client.callTool({ name: 'echo', arguments: { text: 'parsed' } }, undefined, RPC_TIMEOUT);
    expect(result.content).toEqual([{ type: 'text', text: 'parsed' }]);
    await waitFor('the GET stream', () => got.some((r) => r.kind === 'stream.opened' && r.via === 'get'));
    expect(got.filter((r) => r.kind === 'call').map((c) => [c.method, c.tool, c.principal])).toEqual([
      ['initialize', undefined, 'carol'],
      ['tools/call', 'echo', 'carol'],
    ]);
    expect(got.filter((r) => r.kind === 'event.sent').every((r) => r.session === client.sessionId)).toBe(true);
  });
});
