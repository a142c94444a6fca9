import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResumptionRecord } from '../../src/instrument/index.js';
import { analyzeFiles, describeFindings, findingsOf, type Report } from './support/analysis.js';
import { exampleStoreGetResume } from './support/scenarios.js';
import { Stoppables } from './support/stoppables.js';
import { makeTempDir } from './support/temp-dir.js';

// (e) Found while building (a): the SDK's example InMemoryEventStore, one per
// session, accepts a resumption of the standalone GET stream and replays
// nothing (it splits event ids on '_', and that stream is '_GET_stream'), and
// the SDK then writes later messages to no body at all.

const stop = new Stoppables();
const dir = makeTempDir();
let run: Awaited<ReturnType<typeof exampleStoreGetResume>>;
let report: Report;

beforeAll(async () => {
  run = await exampleStoreGetResume(dir.path, stop);
  report = await analyzeFiles([run.logFile]);
});

afterAll(async () => {
  await stop.stopAll();
  dir.remove();
});

const ticks = (): ResumptionRecord[] => run.records.filter((r) => r.kind === 'event.sent' && r.method === 'notifications/message');

describe("SDK example event store resuming the GET stream", () => {
  it('really loses what was sent during and after the cut', () => {
    expect(run.received).toEqual(['tick 1', 'tick 2']);
  });

  it('logs an accepted resumption that replayed nothing although an event was owed', () => {
    const [, tick2, tick3] = ticks() as [ResumptionRecord, ResumptionRecord, ResumptionRecord];
    const resume = run.records.find((r) => r.kind === 'upgrade' && r.decision === 'resume');
    expect(resume).toMatchObject({ last_event_id: tick2.event_id, stream: tick2.stream, status: 200, replayed: 0 });
    expect(tick3).toMatchObject({ stream: tick2.stream, attached: false });
    expect(tick3.seq).toBeLessThan(resume!.seq);
  });

  it('logs the later event as written to no body while the resumed stream is open', () => {
    const resume = run.records.find((r) => r.kind === 'upgrade' && r.decision === 'resume')!;
    const tick4 = ticks()[3]!;
    expect(tick4.seq).toBeGreaterThan(resume.seq);
    expect(tick4).toMatchObject({ attached: false });
    expect(tick4.stream).not.toBe(resume.new_stream);
    const resumedClosedBefore = run.records.find((r) => r.kind === 'stream.closed' && r.stream === resume.new_stream && r.seq < tick4.seq);
    expect(resumedClosedBefore).toBeUndefined();
  });

  it('gives the analyzer silent-truncation', () => {
    expect(findingsOf(report, 'silent-truncation'), describeFindings(report)).not.toEqual([]);
  });

  it('gives the analyzer write-to-superseded-stream', () => {
    expect(findingsOf(report, 'write-to-superseded-stream'), describeFindings(report)).not.toEqual([]);
  });
});
