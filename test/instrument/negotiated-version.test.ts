import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { analyzeFiles } from '../../src/api.js';
import { createRecorder, instrumentHandler } from '../../src/instrument/index.js';
import { startServerV1 } from '../conformance/support/server-v1.js';
import { startServerV2 } from '../conformance/support/server-v2.js';
import { readLog } from '../e2e/support/log.js';
import { OrderedEventStore } from '../e2e/support/ordered-event-store.js';
import { Stoppables } from '../e2e/support/stoppables.js';
import { makeTempDir } from '../e2e/support/temp-dir.js';
import { postMcp as post } from '../e2e/support/mcp-post.js';
import { listenOnLoopback } from '../helpers/loopback-mcp.js';

// An initialize selects the legacy revision the server negotiated (2026-07-28 versioning), which need
// not be the one the client asked for (2025-11-25 lifecycle, Version Negotiation: a dual-era client
// asks for 2026-07-28). The instrumentation reads the answer back from the initialize's result: the
// session's records carry the revision negotiated, the minting upgrade the one asked for.

const stop = new Stoppables();
const tmp = makeTempDir();
afterAll(async () => {
  await stop.stopAll();
  tmp.remove();
});


const initialize = (asked: string) => ({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'dual-era', version: '1' } } });

/** The protocolVersion of an initialize result, JSON or SSE. */
function answered(text: string): string {
  const m = /"protocolVersion":"([^"]+)"/.exec(text);
  if (m === null) throw new Error(`no protocolVersion in ${text}`);
  return m[1]!;
}

describe.each([
  ['sdk 1.32.2', startServerV1],
  ['server 2.4.0', startServerV2],
] as const)('a %s server asked for 2026-07-28 by initialize', (name, start) => {
  it('logs the session at the revision it answered, and the analyzer finds no session in the stateless era', async () => {
    const file = join(tmp.path, `${name.replace(/\W+/g, '-')}.ndjson`);
    const local = new Stoppables();
    const recorder = local.add(createRecorder(file, { node: 'n1' }), (r) => r.close());
    const server = local.add(await start({ recorder, eventStore: () => new OrderedEventStore() }), (s) => s.close());
    const init = await post(server.url, initialize('2026-07-28'));
    const negotiated = answered(init.text);
    expect(negotiated < '2026-07-28').toBe(true);
    await post(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': init.session!, 'mcp-protocol-version': negotiated });
    await post(server.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': init.session!, 'mcp-protocol-version': negotiated });
    await local.stopAll();

    const records = readLog(file);
    expect(records.find((r) => r.kind === 'upgrade' && r.new_session === init.session)).toMatchObject({ protocol_version: '2026-07-28' });
    expect(records.find((r) => r.kind === 'session.created')).toMatchObject({ session: init.session, protocol_version: negotiated });
    // The initialize's own records of the session come after its creation, at the revision negotiated.
    const mint = records.findIndex((r) => r.kind === 'session.created');
    const ofInitialize = records.filter((r) => r.session === init.session && r.kind !== 'session.created' && r.seq! < records.find((c) => c.kind === 'call' && c.method === 'tools/list')!.seq!);
    expect(ofInitialize.every((r) => r.seq! > records[mint]!.seq! && r.protocol_version === negotiated)).toBe(true);
    const report = await analyzeFiles([file]);
    expect(report.summary).toMatchObject({ rejected_lines: 0, protocol_versions: { [negotiated]: 1 } });
    expect(report.findings.map((f) => f.rule)).toEqual([]);
  }, 20_000);
});

describe('a server that answers 2025-03-26 to an initialize asking 2025-11-25', () => {
  const RESULT = { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-03-26', capabilities: {}, serverInfo: { name: 'old', version: '1' } } };

  /** Answers the initialize as JSON, or as SSE with its head first and the result after; later requests (no header: 2025-03-26 has none) with 202. */
  async function serve(file: string, sse: boolean) {
    const recorder = createRecorder(file, { node: 'n1' });
    const handle = instrumentHandler(recorder, (req, res: ServerResponse) => {
      if (req.headers['mcp-session-id'] !== undefined) {
        res.writeHead(202).end();
        return;
      }
      if (!sse) {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'S5' });
        res.end(JSON.stringify(RESULT));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'S5' });
      setTimeout(() => res.end(`event: message\ndata: ${JSON.stringify(RESULT)}\n\n`), 20);
    });
    const http = await listenOnLoopback(async (req, res) => handle(req, res));
    stop.add(http, (h) => h.close());
    return { url: http.url, recorder };
  }

  it.each([
    ['JSON', false],
    ['SSE, its head out before the result', true],
  ])('%s: the session is 2025-03-26, its later requests carry no version', async (_, sse) => {
    const file = join(tmp.path, `downgrade-${String(sse)}.ndjson`);
    const { url, recorder } = await serve(file, sse);
    const init = await post(url, initialize('2025-11-25'));
    expect(answered(init.text)).toBe('2025-03-26');
    await post(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': 'S5' });
    await recorder.close();

    const records = readLog(file);
    expect(records.map((r) => [r.kind, r.protocol_version])).toEqual([
      ['session.created', '2025-03-26'],
      ['upgrade', '2025-11-25'],
      ...(sse ? [['stream.opened', '2025-03-26']] : []),
      ['call', '2025-03-26'],
      ...(sse ? [['stream.closed', '2025-03-26']] : []),
      ['call', undefined],
    ]);
    const report = await analyzeFiles([file]);
    expect(report.summary).toMatchObject({ rejected_lines: 0, protocol_versions: { '2025-03-26': 1 } });
  });
});
