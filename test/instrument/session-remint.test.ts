import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRecorder, type ResumptionRecord } from '../../src/instrument/index.js';
import { deleteSession, rawSession } from '../conformance/support/get-probes.js';
import { analyzeFiles, describeFindings, findingsOf, type Report } from '../e2e/support/analysis.js';
import { readLog } from '../e2e/support/log.js';
import { postMcp } from '../e2e/support/mcp-post.js';
import { OrderedEventStore } from '../e2e/support/ordered-event-store.js';
import { startSdkServer, type SdkServerOptions } from '../e2e/support/sdk-server.js';
import { Stoppables } from '../e2e/support/stoppables.js';
import { makeTempDir } from '../e2e/support/temp-dir.js';

// Seed 004's silent fork on a real SDK server: the client ends its session
// (DELETE), then presents the ended id, and instead of 404 the server mints a
// session for it, under that id or a new one. The instrumentation must log
// that mint, or the analyzer cannot see the fork.

const stop = new Stoppables();
const tmp = makeTempDir();
afterAll(async () => {
  await stop.stopAll();
  tmp.remove();
});

interface Run {
  session: string;
  /** The answer to the request that presented the ended session. */
  after: { status: number; session: string | null };
  records: ResumptionRecord[];
  report: Report;
}

async function presentEndedSession(unknownSession: SdkServerOptions['unknownSession']): Promise<Run> {
  const file = join(tmp.path, `${unknownSession}.ndjson`);
  const local = new Stoppables();
  stop.add(local, (l) => l.stopAll());
  const recorder = local.add(createRecorder(file, { node: 'n1' }), (r) => r.close());
  const server = local.add(await startSdkServer({ recorder, eventStore: () => new OrderedEventStore(), unknownSession }), (s) => s.close());
  const session = await rawSession(server.url);
  const inSession = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  await postMcp(server.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }, inSession);
  expect(await deleteSession(server.url, session)).toBe(200);
  const after = await postMcp(server.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, inSession);
  await local.stopAll();
  return { session, after, records: readLog(file), report: await analyzeFiles([file]) };
}

describe.each([
  ['the same id', 'remint-same-id'],
  ['a new id', 'remint-new-id'],
] as const)('a server that re-mints an ended session under %s', (_name, unknownSession) => {
  let run: Run;
  const minted = (): string => run.after.session!;

  it('answers the ended session 200 with a session', async () => {
    run = await presentEndedSession(unknownSession);
    expect(run.after.status).toBe(200);
    expect(run.after.session).not.toBeNull();
    expect(minted() === run.session).toBe(unknownSession === 'remint-same-id');
  }, 20_000);

  it('logs the mint: a session.created after the end, and a fresh upgrade for the presented id', () => {
    const end = run.records.find((r) => r.kind === 'session.terminated')!;
    expect(end).toMatchObject({ session: run.session, reason: 'client_delete' });
    const created = run.records.filter((r) => r.kind === 'session.created' && r.seq > end.seq);
    expect(created).toEqual([expect.objectContaining({ session: minted() })]);
    const fresh = run.records.filter((r) => r.kind === 'upgrade' && r.seq > end.seq);
    expect(fresh).toEqual([
      expect.objectContaining({ session: run.session, decision: 'fresh', status: 200, new_session: minted(), new_stream: expect.any(String) }),
    ]);
    // The body that answers belongs to the session that answers.
    expect(run.records.find((r) => r.kind === 'stream.opened' && r.stream === fresh[0]!.new_stream)).toMatchObject({ session: minted() });
  });

  it('gives the analyzer silent-fork on the ended session', () => {
    expect(findingsOf(run.report, 'silent-fork').map((f) => f.session), describeFindings(run.report)).toEqual([run.session]);
    expect(run.report.summary.rejected_lines).toBe(0);
  });

  it(`gives session-id-reuse only where the id was re-minted`, () => {
    const reuse = findingsOf(run.report, 'session-id-reuse');
    expect(reuse.map((f) => f.session), describeFindings(run.report)).toEqual(unknownSession === 'remint-same-id' ? [run.session] : []);
  });
});

describe('a server that re-mints a session id it never minted', () => {
  async function presentUnknownSession(sharedSessionStore: boolean): Promise<{ file: string; records: ResumptionRecord[] }> {
    const file = join(tmp.path, `unknown-${sharedSessionStore}.ndjson`);
    const local = new Stoppables();
    stop.add(local, (l) => l.stopAll());
    const recorder = local.add(createRecorder(file, { node: 'n1' }), (r) => r.close());
    const server = local.add(
      await startSdkServer({ recorder, eventStore: () => new OrderedEventStore(), unknownSession: 'remint-same-id', sharedSessionStore }),
      (s) => s.close(),
    );
    const answer = await postMcp(server.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': 'S-never-minted', 'mcp-protocol-version': '2025-11-25' });
    await local.stopAll();
    expect(answer).toMatchObject({ status: 200, session: 'S-never-minted' });
    return { file, records: readLog(file) };
  }

  it('logs no mint where the nodes share a session store: another node may have minted it', async () => {
    const { records } = await presentUnknownSession(true);
    expect(records.filter((r) => r.kind === 'session.created' || r.kind === 'upgrade')).toEqual([]);
    expect(records.find((r) => r.kind === 'call')).toMatchObject({ session: 'S-never-minted', status: 200 });
  }, 20_000);

  it('logs the mint, and the analyzer finds silent-fork on the unknown id', async () => {
    const { file, records } = await presentUnknownSession(false);
    expect(records.filter((r) => r.kind === 'session.created').map((r) => r.session)).toEqual(['S-never-minted']);
    expect(records.find((r) => r.kind === 'upgrade')).toMatchObject({ session: 'S-never-minted', decision: 'fresh', new_session: 'S-never-minted' });
    const report = await analyzeFiles([file]);
    expect(findingsOf(report, 'silent-fork').map((f) => f.session), describeFindings(report)).toEqual(['S-never-minted']);
  }, 20_000);
});

describe('a server that answers the ended session 404', () => {
  let run: Run;

  it('logs no mint for it, and the analyzer finds nothing', async () => {
    run = await presentEndedSession('not-found');
    expect(run.after).toMatchObject({ status: 404, session: null });
    expect(run.records.filter((r) => r.kind === 'session.created')).toHaveLength(1);
    expect(run.records.filter((r) => r.kind === 'upgrade' && r.decision === 'fresh')).toHaveLength(1);
    expect(run.report.findings, describeFindings(run.report)).toEqual([]);
  }, 20_000);
});
