import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { createRecorder, type Recorder, type ResumptionRecord } from '../../../src/instrument/index.js';
import { readLog, waitForRecord } from './log.js';
import { OrderedEventStore } from './ordered-event-store.js';
import { openRawGet } from './raw-sse.js';
import { connectClient, RPC_TIMEOUT, type ConnectedClient } from './sdk-client.js';
import { startSdkServer, type RunningSdkServer, type SdkServerOptions, type SessionEntry } from './sdk-server.js';
import type { Stoppables } from './stoppables.js';
import { sleep, waitFor } from './wait.js';

// The end-to-end scenarios: a real SDK server with resumescope/instrument,
// driven by real SDK clients (and, where a client would not do it, a hand-made
// request). Each writes its log to `<dir>/<name>.ndjson` and returns it.

export interface ScenarioLog {
  logFile: string;
  records: ResumptionRecord[];
}

export const SCENARIO_FILES = {
  cleanResume: 'sdk-clean-resume.ndjson',
  restart: 'sdk-restart.ndjson',
  sharedStore: 'sdk-shared-event-store.ndjson',
  pendingOnAttach: 'sdk-pending-on-attach.ndjson',
  exampleStoreGetResume: 'sdk-example-store-get-resume.ndjson',
} as const;

const isGetOpened = (r: ResumptionRecord): boolean => r.kind === 'stream.opened' && r.via === 'get';

function notify(entry: SessionEntry, text: string): Promise<void> {
  return entry.server.server.notification({ method: 'notifications/message', params: { level: 'info', data: text } });
}

function sessionEntry(server: RunningSdkServer, client: ConnectedClient): SessionEntry {
  const entry = server.sessions.get(client.sessionId);
  if (entry === undefined) throw new Error(`server has no session ${client.sessionId}`);
  return entry;
}

class Harness {
  readonly logFile: string;
  constructor(
    private readonly stop: Stoppables,
    dir: string,
    name: string,
  ) {
    this.logFile = join(dir, name);
    rmSync(this.logFile, { force: true });
  }
  recorder(node: string): Recorder {
    return this.stop.add(createRecorder(this.logFile, { node }), (r) => r.close());
  }
  async server(opts: SdkServerOptions): Promise<RunningSdkServer> {
    return this.stop.add(await startSdkServer(opts), (s) => s.close());
  }
  async client(url: URL, opts: Parameters<typeof connectClient>[1]): Promise<ConnectedClient> {
    return this.stop.add(await connectClient(url, opts), (c) => c.close());
  }
  async finish(): Promise<ScenarioLog> {
    await this.stop.stopAll();
    return { logFile: this.logFile, records: readLog(this.logFile) };
  }
}

/**
 * (a) A tool call, a sampling request the client answers, then the GET
 * stream cut mid-stream; the client resumes it with Last-Event-ID and gets
 * what it missed.
 */
export async function cleanResume(dir: string, stop: Stoppables): Promise<ScenarioLog & { received: string[]; cutStream: string }> {
  const h = new Harness(stop, dir, SCENARIO_FILES.cleanResume);
  const server = await h.server({ recorder: h.recorder('mcp-1'), eventStore: () => new OrderedEventStore() });
  const client = await h.client(server.url, { principal: 'alice', answerSampling: true });
  await client.client.callTool({ name: 'echo', arguments: { text: 'hello' } }, undefined, RPC_TIMEOUT);
  const get = await waitForRecord(h.logFile, 'the GET stream', isGetOpened);
  await client.client.callTool({ name: 'ask', arguments: { timeoutMs: 3000 } }, undefined, RPC_TIMEOUT);
  await waitForRecord(h.logFile, "the client's answer to the sampling request", (r) => r.kind === 'request.answered');
  const entry = sessionEntry(server, client);
  await notify(entry, 'tick 1');
  await notify(entry, 'tick 2');
  await waitFor('ticks 1-2 at the client', () => client.messages.includes('tick 2'));
  if (server.cutGetStreams(client.sessionId) !== 1) throw new Error('expected one live GET stream to cut');
  await waitForRecord(h.logFile, 'the cut stream closed', (r) => r.kind === 'stream.closed' && r.stream === get.stream);
  // Sent while the client is away: stored, written to no body, owed on resume.
  await notify(entry, 'tick 3');
  await notify(entry, 'tick 4');
  await waitFor('ticks 3-4 replayed to the client', () => client.messages.includes('tick 4'));
  await client.transport.terminateSession();
  const received = [...client.messages];
  return { ...(await h.finish()), received, cutStream: get.stream! };
}

/** (b) The server restarts: its new transport map no longer knows the session. */
export async function serverRestart(dir: string, stop: Stoppables): Promise<ScenarioLog & { session: string; postError: unknown }> {
  const h = new Harness(stop, dir, SCENARIO_FILES.restart);
  const before = h.recorder('mcp-1');
  const first = await h.server({ recorder: before, eventStore: () => new OrderedEventStore() });
  const client = await h.client(first.url, { principal: 'alice', reconnectDelayMs: 100 });
  await client.client.callTool({ name: 'echo', arguments: { text: 'before the restart' } }, undefined, RPC_TIMEOUT);
  await waitForRecord(h.logFile, 'the GET stream', isGetOpened);
  // A graceful restart: streams end, the process state (transports, event store) is gone.
  await first.close();
  await before.close();
  const after = h.recorder('mcp-1-restarted');
  await h.server({ recorder: after, eventStore: () => new OrderedEventStore(), port: first.port });
  await waitForRecord(h.logFile, "the client's reconnect, answered by the new process", (r) => r.node === 'mcp-1-restarted' && r.kind === 'upgrade');
  const postError = await client.client.callTool({ name: 'echo', arguments: { text: 'after the restart' } }, undefined, RPC_TIMEOUT).then(
    () => undefined,
    (err: unknown) => err,
  );
  return { ...(await h.finish()), session: client.sessionId, postError };
}

/** (c) One InMemoryEventStore for all sessions: session B presents session A's event id. */
export async function sharedEventStore(
  dir: string,
  stop: Stoppables,
): Promise<ScenarioLog & { alice: string; bob: string; stolenEventId: string; status: number; leaked: string }> {
  const h = new Harness(stop, dir, SCENARIO_FILES.sharedStore);
  const shared = new InMemoryEventStore();
  const server = await h.server({ recorder: h.recorder('mcp-1'), eventStore: () => shared });
  const alice = await h.client(server.url, { principal: 'alice' });
  const aliceIds: string[] = [];
  await alice.client.callTool({ name: 'count', arguments: { to: 3 } }, undefined, {
    ...RPC_TIMEOUT,
    onresumptiontoken: (id) => aliceIds.push(id),
  });
  const bob = await h.client(server.url, { principal: 'bob' });
  const stolenEventId = aliceIds[0];
  if (stolenEventId === undefined) throw new Error("alice's tool call carried no event id");
  const raw = stop.add(
    await openRawGet(server.url, { 'mcp-session-id': bob.sessionId, 'last-event-id': stolenEventId, 'x-principal': 'bob' }),
    (r) => r.close(),
  );
  if (raw.status === 200) await raw.waitFor("alice's tool result on bob's stream", (t) => t.includes('counted to 3'));
  raw.close();
  return { ...(await h.finish()), alice: alice.sessionId, bob: bob.sessionId, stolenEventId, status: raw.status, leaked: raw.text() };
}

/** (d) A sampling request pending when the GET stream is cut; the client re-attaches without Last-Event-ID. */
export async function pendingOnAttach(
  dir: string,
  stop: Stoppables,
): Promise<ScenarioLog & { session: string; cutStream: string; attachStatus: number; attachText: string }> {
  const h = new Harness(stop, dir, SCENARIO_FILES.pendingOnAttach);
  const server = await h.server({ recorder: h.recorder('mcp-1'), eventStore: () => new OrderedEventStore() });
  const client = await h.client(server.url, { principal: 'alice', reconnect: false });
  const get = await waitForRecord(h.logFile, 'the GET stream', isGetOpened);
  await client.client.callTool({ name: 'ask', arguments: { timeoutMs: 1500 } }, undefined, RPC_TIMEOUT);
  await waitFor('the sampling request at the client', () => client.samplingRequests === 1);
  server.cutGetStreams(client.sessionId);
  await waitForRecord(h.logFile, 'the cut stream closed', (r) => r.kind === 'stream.closed' && r.stream === get.stream);
  // A client that lost its cursor (a reload, a new process) attaches afresh.
  const attach = stop.add(await openRawGet(server.url, { 'mcp-session-id': client.sessionId, 'x-principal': 'alice' }), (r) => r.close());
  await waitForRecord(h.logFile, 'the sampling request to time out', (r) => r.kind === 'request.timed_out', 4000);
  await attach.waitFor('the cancellation on the attached stream', (t) => t.includes('notifications/cancelled'));
  attach.close();
  return { ...(await h.finish()), session: client.sessionId, cutStream: get.stream!, attachStatus: attach.status, attachText: attach.text() };
}

/**
 * (e) The SDK's example InMemoryEventStore, per session, cannot resume the
 * standalone GET stream: it derives the stream from the event id by splitting
 * on '_', and that stream's id is '_GET_stream'.
 */
export async function exampleStoreGetResume(dir: string, stop: Stoppables): Promise<ScenarioLog & { received: string[] }> {
  const h = new Harness(stop, dir, SCENARIO_FILES.exampleStoreGetResume);
  const server = await h.server({ recorder: h.recorder('mcp-1'), eventStore: () => new InMemoryEventStore() });
  const client = await h.client(server.url, { principal: 'alice' });
  const get = await waitForRecord(h.logFile, 'the GET stream', isGetOpened);
  const entry = sessionEntry(server, client);
  await notify(entry, 'tick 1');
  await notify(entry, 'tick 2');
  await waitFor('ticks 1-2 at the client', () => client.messages.includes('tick 2'));
  server.cutGetStreams(client.sessionId);
  await waitForRecord(h.logFile, 'the cut stream closed', (r) => r.kind === 'stream.closed' && r.stream === get.stream);
  await notify(entry, 'tick 3');
  await waitForRecord(h.logFile, "the client's resumption", (r) => r.kind === 'upgrade' && r.decision === 'resume');
  await notify(entry, 'tick 4');
  // Bounded wait for something that should never come: ticks 3 and 4.
  await sleep(300);
  const received = [...client.messages];
  return { ...(await h.finish()), received };
}
