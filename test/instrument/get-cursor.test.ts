import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecorder, instrumentHandler, type Recorder, type ResumptionRecord } from '../../src/instrument/index.js';
import { rawSession } from '../conformance/support/get-probes.js';
import { analyzeFiles, describeFindings, findingsOf, type Report } from '../e2e/support/analysis.js';
import { readLog } from '../e2e/support/log.js';
import { openRawGet } from '../e2e/support/raw-sse.js';
import { startSdkServer } from '../e2e/support/sdk-server.js';
import { Stoppables } from '../e2e/support/stoppables.js';
import { makeTempDir } from '../e2e/support/temp-dir.js';
import { listenOnLoopback, type LoopbackHttp } from '../helpers/loopback-mcp.js';

// A GET carrying Last-Event-ID asks to resume. A server with no event store
// (the SDK's default) answers it 200 with a new stream and nothing replayed:
// the cursor is silently dropped. The log must call that answer a resume, so
// that the rules judge what it left out, not an attach, which no rule faults.

const stop = new Stoppables();
const tmp = makeTempDir();
afterAll(async () => {
  await stop.stopAll();
  tmp.remove();
});

interface Logged {
  records: ResumptionRecord[];
  report: Report;
}

/** One accepted GET per entry of `gets`, each closed before the next; then the log and its analysis. */
async function logGets(name: string, start: (recorder: Recorder) => Promise<{ url: URL; close(): Promise<void> }>, gets: (url: URL) => Promise<Record<string, string>[]>): Promise<Logged> {
  const file = join(tmp.path, `${name}.ndjson`);
  const local = new Stoppables();
  stop.add(local, (l) => l.stopAll());
  const recorder = local.add(createRecorder(file, { node: 'n1' }), (r) => r.close());
  const server = local.add(await start(recorder), (s) => s.close());
  for (const headers of await gets(server.url)) {
    const get = await openRawGet(server.url, headers);
    expect(get.status).toBe(200);
    get.close();
  }
  await local.stopAll();
  return { records: readLog(file), report: await analyzeFiles([file]) };
}

const upgradesOf = (records: ResumptionRecord[], session: string | null) =>
  records.filter((r) => r.kind === 'upgrade' && r.session === session && r.decision !== 'fresh');

describe('a stateful server without an event store', () => {
  let logged: Logged;
  let cursorSession: string;
  let plainSession: string;

  beforeAll(async () => {
    logged = await logGets('no-store', (recorder) => startSdkServer({ recorder, eventStore: null }), async (url) => {
      cursorSession = await rawSession(url);
      plainSession = await rawSession(url);
      const gets: Record<string, string>[] = [{ 'mcp-session-id': cursorSession, 'last-event-id': 'e2' }, { 'mcp-session-id': plainSession }];
      return gets;
    });
  }, 20_000);

  it('logs the GET with Last-Event-ID as a resume that replayed nothing', () => {
    expect(upgradesOf(logged.records, cursorSession)).toEqual([
      expect.objectContaining({ decision: 'resume', last_event_id: 'e2', replayed: 0, status: 200, new_stream: expect.any(String) }),
    ]);
  });

  it('gives the analyzer phantom-event-id for it: the server never sent e2', () => {
    expect(findingsOf(logged.report, 'phantom-event-id').map((f) => f.session), describeFindings(logged.report)).toEqual([cursorSession]);
  });

  it('still logs a GET without Last-Event-ID as an attach, and finds nothing in its session', () => {
    expect(upgradesOf(logged.records, plainSession)).toEqual([expect.objectContaining({ decision: 'attach', last_event_id: null, status: 200 })]);
    expect(logged.report.findings.filter((f) => f.session === plainSession), describeFindings(logged.report)).toEqual([]);
  });
});

/** The SDK in stateless mode: a transport per request, no session id, no event store. */
async function startStatelessServer(recorder: Recorder): Promise<LoopbackHttp> {
  return listenOnLoopback(
    instrumentHandler(recorder, async (req, res) => {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const server = new McpServer({ name: 'resumescope-stateless', version: '1.0.0' });
      res.on('close', () => void server.close().catch(() => {}));
      await server.connect(transport);
      await transport.handleRequest(req, res);
    }),
  );
}

describe('a stateless server', () => {
  let logged: Logged;

  beforeAll(async () => {
    const gets: Record<string, string>[] = [{ 'last-event-id': 'e5' }, {}];
    logged = await logGets('stateless', startStatelessServer, async () => gets);
  }, 20_000);

  it('logs the GET with Last-Event-ID as a resume without a session, and the one without as an attach', () => {
    expect(upgradesOf(logged.records, null).map((r) => [r.decision, r.last_event_id, r.replayed, r.status])).toEqual([
      ['resume', 'e5', 0, 200],
      ['attach', null, 0, 200],
    ]);
  });

  it('gives the analyzer event-id-without-session for the resume only', () => {
    const findings = findingsOf(logged.report, 'event-id-without-session');
    expect(findings, describeFindings(logged.report)).toHaveLength(1);
    expect(findings[0]!.message).toContain('e5');
    expect(logged.report.summary.rejected_lines).toBe(0);
  });
});
