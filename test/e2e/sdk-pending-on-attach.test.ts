import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeFiles, describeFindings, findingsOf, type Report } from './support/analysis.js';
import { pendingOnAttach } from './support/scenarios.js';
import { Stoppables } from './support/stoppables.js';
import { makeTempDir } from './support/temp-dir.js';

// (d) A sampling request is pending on the GET stream when that stream is
// cut; the client attaches again without Last-Event-ID. The SDK does not
// re-emit the request on the new stream, and it times out.

const stop = new Stoppables();
const dir = makeTempDir();
let run: Awaited<ReturnType<typeof pendingOnAttach>>;
let report: Report;

beforeAll(async () => {
  run = await pendingOnAttach(dir.path, stop);
  report = await analyzeFiles([run.logFile]);
});

afterAll(async () => {
  await stop.stopAll();
  dir.remove();
});

describe('SDK server, server request pending across a re-attach', () => {
  it('logs the sampling request on the GET stream, naming the event that carried it', () => {
    const sent = run.records.find((r) => r.kind === 'request.sent');
    expect(sent).toMatchObject({ session: run.session, stream: run.cutStream, method: 'sampling/createMessage' });
    const carrier = run.records.find((r) => r.kind === 'event.sent' && r.event_id === sent?.event_id);
    expect(carrier).toMatchObject({ stream: run.cutStream, rpc_kind: 'request', rpc_id: sent?.request_id });
  });

  it('logs the attach after the cut with the counters the SDK shows: nothing replayed, re-emitted or cancelled', () => {
    const closed = run.records.find((r) => r.kind === 'stream.closed' && r.stream === run.cutStream);
    expect(closed?.reason).toBe('client');
    const attaches = run.records.filter((r) => r.kind === 'upgrade' && r.decision === 'attach');
    const reattach = attaches.at(-1);
    expect(attaches).toHaveLength(2);
    expect(reattach).toMatchObject({ session: run.session, last_event_id: null, status: 200, replayed: 0, reemitted: 0, cancelled: 0 });
    expect(reattach?.seq).toBeGreaterThan(closed?.seq ?? Infinity);
  });

  it('really re-emits nothing: the new stream gets only the cancellation, then the request times out', () => {
    expect(run.attachStatus).toBe(200);
    expect(run.attachText).not.toContain('sampling/createMessage');
    expect(run.attachText).toContain('notifications/cancelled');
    const sent = run.records.find((r) => r.kind === 'request.sent');
    expect(run.records.filter((r) => r.kind === 'request.timed_out')).toEqual([
      expect.objectContaining({ session: run.session, request_id: sent?.request_id }),
    ]);
    expect(run.records.filter((r) => r.kind === 'request.answered' || r.kind === 'request.cancelled')).toEqual([]);
  });

  it('gives the analyzer pending-not-reemitted for the re-attach', () => {
    expect(findingsOf(report, 'pending-not-reemitted').map((f) => f.session), describeFindings(report)).toEqual([run.session]);
  });

  it('gives the analyzer an orphaned-request for the timed-out sampling request', () => {
    expect(findingsOf(report, 'orphaned-request').map((f) => f.session), describeFindings(report)).toContain(run.session);
  });
});
