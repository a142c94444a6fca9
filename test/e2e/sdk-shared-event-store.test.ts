import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeFiles, describeFindings, findingsOf, type Report } from './support/analysis.js';
import { sharedEventStore } from './support/scenarios.js';
import { Stoppables } from './support/stoppables.js';
import { makeTempDir } from './support/temp-dir.js';

// (c) One InMemoryEventStore shared by every session. It finds a stream by
// event id alone, so session B presenting session A's event id gets A's
// events replayed into B.

const stop = new Stoppables();
const dir = makeTempDir();
let run: Awaited<ReturnType<typeof sharedEventStore>>;
let report: Report;

beforeAll(async () => {
  run = await sharedEventStore(dir.path, stop);
  report = await analyzeFiles([run.logFile]);
});

afterAll(async () => {
  await stop.stopAll();
  dir.remove();
});

describe('SDK server with one event store shared by all sessions', () => {
  it("really serves alice's tool result on bob's stream", () => {
    expect(run.status).toBe(200);
    expect(run.leaked).toContain('counted to 3');
  });

  it("logs bob's resumption with alice's event id, her stream, and her events replayed", () => {
    const aliceEvents = run.records.filter((r) => r.kind === 'event.sent' && r.session === run.alice);
    const stolen = aliceEvents.find((r) => r.event_id === run.stolenEventId);
    expect(stolen?.stream).toEqual(expect.any(String));
    const resume = run.records.find((r) => r.kind === 'upgrade' && r.decision === 'resume');
    expect(resume).toMatchObject({
      session: run.bob,
      last_event_id: run.stolenEventId,
      stream: stolen?.stream,
      status: 200,
      principal: 'bob',
    });
    expect(resume?.replayed).toBeGreaterThan(0);
    const aliceIds = new Set(aliceEvents.map((r) => r.event_id));
    for (const id of resume?.replayed_ids ?? []) expect(aliceIds.has(id), `replayed ${id} is alice's`).toBe(true);
  });

  it('names each session owner', () => {
    const owners = run.records.filter((r) => r.kind === 'session.created').map((r) => [r.session, r.principal]);
    expect(owners).toEqual([
      [run.alice, 'alice'],
      [run.bob, 'bob'],
    ]);
  });

  it('gives the analyzer a foreign-event-id finding for bob', () => {
    expect(findingsOf(report, 'foreign-event-id').map((f) => f.session), describeFindings(report)).toContain(run.bob);
  });

  it("gives the analyzer a cross-principal-replay of alice's events to bob", () => {
    expect(findingsOf(report, 'cross-principal-replay'), describeFindings(report)).not.toEqual([]);
  });
});
