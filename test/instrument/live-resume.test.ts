import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecorder, type ResumptionRecord } from '../../src/instrument/index.js';
import { analyzeFiles, findingsOf, describeFindings, type Report } from '../e2e/support/analysis.js';
import { readLog, waitForRecord } from '../e2e/support/log.js';
import { OrderedEventStore } from '../e2e/support/ordered-event-store.js';
import { openRawGet } from '../e2e/support/raw-sse.js';
import { connectClient } from '../e2e/support/sdk-client.js';
import { startSdkServer } from '../e2e/support/sdk-server.js';
import { Stoppables } from '../e2e/support/stoppables.js';

// A resumption of a POST stream that is still being written: the SDK ends
// the old body and moves the stream to the new one. The log must show the
// old writer gone before the new one starts, or it would claim two writers.

const stop = new Stoppables();
const dir = mkdtempSync(join(tmpdir(), 'resumescope-live-resume-'));
const logFile = join(dir, 'live.ndjson');
let records: ResumptionRecord[];
let first: ResumptionRecord;
let report: Report;

beforeAll(async () => {
  const recorder = stop.add(createRecorder(logFile, { node: 'n1' }), (r) => r.close());
  const server = stop.add(await startSdkServer({ recorder, eventStore: () => new OrderedEventStore() }), (s) => s.close());
  const client = stop.add(await connectClient(server.url, {}), (c) => c.close());
  void client.client.callTool({ name: 'count', arguments: { to: 10 } }, undefined, { timeout: 3000 }).catch(() => {});
  first = await waitForRecord(logFile, 'the first progress event', (r) => r.kind === 'event.sent' && r.method === 'notifications/message');
  const raw = stop.add(await openRawGet(server.url, { 'mcp-session-id': client.sessionId, 'last-event-id': first.event_id! }), (r) => r.close());
  await raw.waitFor('the tool result on the resumed stream', (t) => t.includes('counted to 10'));
  await stop.stopAll();
  records = readLog(logFile);
  report = await analyzeFiles([logFile]);
});

afterAll(async () => {
  await stop.stopAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('resuming a stream that is still being written', () => {
  it('logs the old body closed by the server before the resumption, and later events on the new body', () => {
    const resume = records.find((r) => r.kind === 'upgrade' && r.decision === 'resume')!;
    expect(resume).toMatchObject({ last_event_id: first.event_id, stream: first.stream, status: 200 });
    const closed = records.find((r) => r.kind === 'stream.closed' && r.stream === first.stream)!;
    expect(closed.reason).toBe('server');
    expect(closed.seq).toBeLessThan(resume.seq);
    const result = records.find((r) => r.kind === 'event.sent' && r.rpc_kind === 'response' && r.sequence === first.sequence)!;
    expect(result.stream).toBe(resume.new_stream);
    expect(result.seq).toBeGreaterThan(resume.seq);
  });

  it('gives the analyzer no dual-writer', () => {
    expect(findingsOf(report, 'dual-writer'), describeFindings(report)).toEqual([]);
  });
});
