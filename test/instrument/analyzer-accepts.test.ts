import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeFiles } from '../../src/api.js';
import { createRecorder, instrumentEventStore, instrumentHandler, NOT_A_RECORD, type Recorder } from '../../src/instrument/index.js';
import { rawSession, eventIdOf } from '../conformance/support/get-probes.js';
import { startServerV1 } from '../conformance/support/server-v1.js';
import { startServerV2 } from '../conformance/support/server-v2.js';
import { readLog } from '../e2e/support/log.js';
import { OrderedEventStore } from '../e2e/support/ordered-event-store.js';
import { openRawGet } from '../e2e/support/raw-sse.js';
import { Stoppables } from '../e2e/support/stoppables.js';
import { makeTempDir } from '../e2e/support/temp-dir.js';
import { postMcp as post } from '../e2e/support/mcp-post.js';
import { join } from 'node:path';

// The instrumentation must never write a line its own analyzer rejects. Each
// path below writes what log-format.md v2 says, and the analyzer ingests it
// with zero rejected lines.

const stop = new Stoppables();
const tmp = makeTempDir();
const dir = { file: (name: string) => join(tmp.path, name), remove: () => tmp.remove() };
afterAll(async () => {
  await stop.stopAll();
  dir.remove();
});


describe.each([
  ['sdk 1.32.2', startServerV1],
  ['server 2.4.0', startServerV2],
] as const)('a %s server', (_name, start) => {
  const file = dir.file(`${_name.replace(/\W+/g, '-')}.ndjson`);
  let report: Awaited<ReturnType<typeof analyzeFiles>>;
  let session: string;
  let polled: { status: number; text: string };
  let resumedText = '';

  beforeAll(async () => {
    const local = new Stoppables();
    const recorder = local.add(createRecorder(file, { node: 'n1' }), (r) => r.close());
    const server = local.add(await start({ recorder, eventStore: () => new OrderedEventStore(), retryIntervalMs: 250 }), (s) => s.close());
    stop.add(local, (l) => l.stopAll());
    // Before any session: a request that is not initialize, and one with a foreign Host.
    await post(server.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    session = await rawSession(server.url);
    const inSession = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    // 2025-11-25: a priming event with retry, then the server ends the stream before the result.
    polled = await post(server.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } }, inSession);
    const priming = /^id: ?(.+)$/m.exec(polled.text)?.[1]?.trim();
    if (priming === undefined) throw new Error(`no priming event: ${polled.text}`);
    const resumed = local.add(await openRawGet(server.url, { ...inSession, 'last-event-id': priming }), (r) => r.close());
    await resumed.waitFor('the result replayed after the poll', (t) => t.includes('Reconnection test completed'));
    resumedText = resumed.text();
    resumed.close();
    // The SDK ends the session itself (server.close()), with no DELETE.
    await local.stopAll();
    report = await analyzeFiles([file]);
  }, 20_000);

  it('rejects no line', () => {
    expect(report.summary.rejected_lines).toBe(0);
    expect(report.summary.ignored_lines).toBe(0);
  });

  it('logs a POST answered before any session as an http record, without a session', () => {
    const http = readLog(file).filter((r) => r.kind === 'http');
    expect(http).toHaveLength(1);
    expect(http[0]).toMatchObject({ method: 'POST', path: '/mcp', status: 400, rpc_kind: 'request', rpc_method: 'tools/list', rpc_id: 1 });
    expect(http[0]).not.toHaveProperty('session');
    expect(readLog(file).filter((r) => r.kind === 'call' && r.session == null)).toEqual([]);
  });

  it('marks the priming event, and logs the poll close with the retry the body told', () => {
    const records = readLog(file);
    const call = records.find((r) => r.kind === 'call' && r.tool === 'test_reconnection')!;
    const stream = records.findLast((r) => r.kind === 'stream.opened' && r.via === 'post' && r.conn === call.conn && r.seq! < call.seq)!.stream;
    expect(records.find((r) => r.kind === 'event.sent' && r.stream === stream)).toMatchObject({ priming: true, protocol_version: '2025-11-25' });
    expect(records.find((r) => r.kind === 'stream.closed' && r.stream === stream)).toMatchObject({ reason: 'poll', retry_ms: 250 });
    expect(eventIdOf(resumedText, 'Reconnection test completed')).toBeDefined();
  });

  it('carries the protocol version on the session, and logs the end the SDK decided', () => {
    const records = readLog(file);
    expect(records.find((r) => r.kind === 'session.created')).toMatchObject({ session, protocol_version: '2025-11-25' });
    expect(records.filter((r) => r.kind === 'session.terminated')).toEqual([expect.objectContaining({ session, reason: 'server_close' })]);
    expect(report.summary.protocol_versions).toEqual({ '2025-11-25': 1 });
  });
});

describe('outside what a session can name', () => {
  async function serve(recorder: Recorder, answer: (res: import('node:http').ServerResponse) => void): Promise<URL> {
    const handle = instrumentHandler(recorder, (_req, res) => answer(res));
    const http = createServer((req, res) => void handle(req, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
    stop.add(http, (h) => new Promise((resolve) => h.close(() => resolve(undefined))));
    return new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  }

  it('logs a 2026-07-28 request, which has no session, as a call the analyzer accepts', async () => {
    const file = dir.file('stateless.ndjson');
    const recorder = createRecorder(file, { node: 'n1' });
    const url = await serve(recorder, (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"jsonrpc":"2.0","id":7,"result":{}}');
    });
    await post(url, { jsonrpc: '2.0', id: 7, method: 'tools/list' }, { 'mcp-protocol-version': '2026-07-28' });
    await recorder.close();
    const [call] = readLog(file);
    expect(call).toMatchObject({ kind: 'call', rpc_id: 7, method: 'tools/list', status: 200, protocol_version: '2026-07-28' });
    expect(call).not.toHaveProperty('session');
    const report = await analyzeFiles([file]);
    expect(report.summary).toMatchObject({ records: 1, rejected_lines: 0 });
  });

  it('writes an event no session can be found for as a note the analyzer counts, not a rejected line', async () => {
    const file = dir.file('unattributed.ndjson');
    const recorder = createRecorder(file, { node: 'n1' });
    const store = instrumentEventStore(new OrderedEventStore(), recorder);
    const first = await store.storeEvent('_GET_stream', { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });
    await store.replayEventsAfter(first, { send: async () => {} });
    await recorder.close();
    const lines = readLog(file) as unknown as Record<string, unknown>[];
    expect(lines[0]).toMatchObject({ msg: NOT_A_RECORD, record_kind: 'event.sent', event_id: first, why: expect.stringContaining('session') });
    expect(lines[0]).not.toHaveProperty('kind');
    const report = await analyzeFiles([file]);
    expect(report.summary).toMatchObject({ rejected_lines: 0, ignored_lines: 1, records: 1 });
  });
});
