import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRecorder, instrumentHandler, type ResumptionRecord } from '../../src/instrument/index.js';

// resumescope/instrument must never write a credential: requests carry
// authorization and cookie headers, an error body echoes a token, and a
// careless principalOf returns the Authorization header itself.

const SECRET = 'S3CR3T';
let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A tiny MCP-shaped endpoint: POST initialize mints a session; a GET with a Last-Event-ID is refused with a message that echoes the token. */
function handler(req: IncomingMessage, res: ServerResponse): void {
  if (req.method === 'POST') {
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'S1', 'set-cookie': `sid=${SECRET}-cookie-out` });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: 0, result: {} }));
    return;
  }
  res.writeHead(401, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: `invalid token: ${req.headers.authorization} (token=${SECRET}-q)` } }));
}

async function run(principalOf: (req: IncomingMessage) => string | undefined): Promise<{ lines: string; records: ResumptionRecord[] }> {
  const written: string[] = [];
  const records: ResumptionRecord[] = [];
  const recorder = createRecorder((r) => {
    records.push(r);
    written.push(JSON.stringify(r));
  }, { node: 'n1', clock: () => Date.parse('2026-11-09T10:00:00.000Z') });
  server = createServer(instrumentHandler(recorder, handler, { principalOf }));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const headers = { authorization: `Bearer ${SECRET}-bearer-1`, cookie: `sid=${SECRET}-cookie-in`, 'x-api-key': `${SECRET}-key` };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { password: `${SECRET}-arg` } });
  await (await fetch(url, { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, signal: AbortSignal.timeout(3000) })).text();
  await (await fetch(url, { headers: { ...headers, 'mcp-session-id': 'S1', 'last-event-id': '7', accept: 'text/event-stream' }, signal: AbortSignal.timeout(3000) })).text();
  const deadline = Date.now() + 3000;
  while (!records.some((r) => r.kind === 'upgrade' && r.decision === 'reject') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  await recorder.close();
  return { lines: written.join('\n'), records };
}

describe('the instrumentation writes no credential', () => {
  it('headers, error bodies and a principal that is the token itself come out redacted', async () => {
    const { lines, records } = await run((req) => req.headers.authorization);
    expect(records.map((r) => r.kind)).toEqual(expect.arrayContaining(['session.created', 'upgrade']));
    const reject = records.find((r) => r.kind === 'upgrade' && r.decision === 'reject');
    expect(reject?.reason).toMatch(/^invalid token: \[redacted\]/);
    expect(reject?.last_event_id).toBe('7');
    expect(records.find((r) => r.kind === 'session.created')?.principal).toBe('Bearer [redacted]');
    expect(lines.split(SECRET).length - 1).toBe(0);
  });

  it('a fingerprint principal is written as given', async () => {
    const { records } = await run(() => 'fp:9c1e44');
    expect(records.find((r) => r.kind === 'session.created')?.principal).toBe('fp:9c1e44');
  });
});
