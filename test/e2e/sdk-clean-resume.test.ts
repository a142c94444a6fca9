import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, SDK_STANDALONE_STREAM_ID, sha256Hex, type ResumptionRecord } from '../../src/instrument/index.js';
import { analyzeFiles, describeFindings, errorsOrWorse, type Report } from './support/analysis.js';
import { cleanResume } from './support/scenarios.js';
import { Stoppables } from './support/stoppables.js';
import { makeTempDir } from './support/temp-dir.js';

// (a) Real SDK server and client: initialize, a tool call, a sampling request
// the client answers, the GET stream cut mid-stream, the client resumes with
// Last-Event-ID and the replay arrives.

const stop = new Stoppables();
const dir = makeTempDir();
let run: Awaited<ReturnType<typeof cleanResume>>;
let report: Report;

beforeAll(async () => {
  run = await cleanResume(dir.path, stop);
  report = await analyzeFiles([run.logFile]);
});

afterAll(async () => {
  await stop.stopAll();
  dir.remove();
});

const ofKind = (kind: string): ResumptionRecord[] => run.records.filter((r) => r.kind === kind);
const only = <T>(list: T[], what: string): T => {
  expect(list, what).toHaveLength(1);
  return list[0]!;
};

describe('SDK server, clean stream resumption', () => {
  it('delivers every notification to the client exactly once, in order, across the cut', () => {
    expect(run.received).toEqual(['tick 1', 'tick 2', 'tick 3', 'tick 4']);
  });

  it('logs the resumption: closed by the client first, resumed from the last id it saw, the missed events replayed', () => {
    const ticks = run.records.filter((r) => r.kind === 'event.sent' && r.stream === run.cutStream && r.method === 'notifications/message');
    expect(ticks).toHaveLength(4);
    const [, tick2, tick3, tick4] = ticks as [ResumptionRecord, ResumptionRecord, ResumptionRecord, ResumptionRecord];
    expect([tick3.attached, tick4.attached]).toEqual([false, false]);

    const closed = only(ofKind('stream.closed').filter((r) => r.stream === run.cutStream), 'the cut stream closes once');
    expect(closed.reason).toBe('client');
    const resume = only(ofKind('upgrade').filter((r) => r.decision === 'resume'), 'one resumption');
    expect(resume).toMatchObject({
      last_event_id: tick2.event_id,
      stream: run.cutStream,
      sequence: SDK_STANDALONE_STREAM_ID,
      status: 200,
      replayed: 2,
      first_replayed: tick3.event_id,
      replayed_ids: [tick3.event_id, tick4.event_id],
      reemitted: 0,
    });
    expect(resume.new_stream).not.toBe(run.cutStream);
    expect(closed.seq).toBeLessThan(resume.seq);
  });

  it('logs the session from creation to DELETE, with the principal and each call', () => {
    const created = only(ofKind('session.created'), 'one session');
    expect(created).toMatchObject({ principal: 'alice' });
    expect(created.incarnation).toEqual(expect.any(String));
    const session = created.session;
    expect(ofKind('upgrade').find((r) => r.decision === 'fresh')).toMatchObject({ session: null, new_session: session, status: 200 });
    expect(ofKind('call').map((c) => c.tool ?? c.method)).toEqual(['initialize', 'echo', 'ask']);
    expect(ofKind('call')[1]).toMatchObject({
      session,
      tool: 'echo',
      args_hash: sha256Hex(canonicalJson({ text: 'hello' })),
      status: 200,
      principal: 'alice',
    });
    expect(ofKind('session.terminated')).toEqual([expect.objectContaining({ session, reason: 'client_delete' })]);
  });

  it("logs the sampling request and the client's answer to it, taken with a 202", () => {
    const sent = only(ofKind('request.sent'), 'one server request');
    expect(sent).toMatchObject({ method: 'sampling/createMessage', stream: run.cutStream });
    expect(ofKind('request.answered')).toEqual([expect.objectContaining({ session: sent.session, request_id: sent.request_id, status: 202 })]);
  });

  it('writes records the analyzer reads whole: RFC 3339 times, one node, seq counting up', () => {
    expect(report.summary.rejected_lines).toBe(0);
    expect(report.summary.records).toBe(run.records.length);
    for (const r of run.records) expect(new Date(r.ts).toISOString()).toBe(r.ts);
    expect(new Set(run.records.map((r) => r.node))).toEqual(new Set(['mcp-1']));
    expect(run.records.map((r) => r.seq)).toEqual(run.records.map((_, i) => i + 1));
  });

  it('gives the analyzer nothing to report at error or above', () => {
    expect(errorsOrWorse(report), describeFindings(report)).toEqual([]);
  });
});
