import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { analyzeFiles, type Report } from '../../../src/api.js';
import { createRecorder, type EventStoreLike, type ResumptionRecord } from '../../../src/instrument/index.js';
import { readLog } from '../../e2e/support/log.js';
import { OrderedEventStore } from '../../e2e/support/ordered-event-store.js';
import { Stoppables } from '../../e2e/support/stoppables.js';
import { probeForeignEventId, probeGetStream, type GetProbe } from './get-probes.js';
import type { RunningServer } from './host.js';
import { startServerV1, type ServerOptions } from './server-v1.js';
import { startServerV2 } from './server-v2.js';
import { runSuite, type SuiteRun, type SuiteVersion } from './suite.js';

// Everything one SDK's conformance test runs: the official suite (both
// versions) and the raw GET probes, each against a fresh instrumented server
// with its own log, each log analyzed.

export type Sdk = 'sdk-1.32.2' | 'server-2.4.0';
const START: Record<Sdk, (opts: ServerOptions) => Promise<RunningServer>> = { 'sdk-1.32.2': startServerV1, 'server-2.4.0': startServerV2 };

/** Bounds the suite's CLI; each full run takes ~10 s on an idle 2-core machine. */
export const SUITE_TIMEOUT_MS = 60_000;
/** Runs of a suite version that may meet the client's race with the GET stream (below) before its result stands. */
export const SUITE_ATTEMPTS = 3;
/** The revision both SDKs speak: the suites' stateless 2026-07-28 scenarios are for servers that speak it. */
const SPEC_VERSION = '2025-11-25';

export interface Analyzed {
  logFile: string;
  records: ResumptionRecord[];
  report: Report;
}

export interface ConformanceRun {
  /** The active server scenarios of a suite version, in one CLI run. */
  suites: Record<SuiteVersion, Analyzed & { run: SuiteRun }>;
  /** 0.1.16's server-sse-polling, run alone (the suite leaves it out of its active set). */
  polling: Analyzed & { run: SuiteRun };
  /** GET probes with a correct per-session store. */
  getProbe: Analyzed & { probe: GetProbe };
  /** The same probes with the SDK's example InMemoryEventStore, one per session. */
  exampleStore: Analyzed & { probe: GetProbe };
  /** One store for all sessions, ids global: session B resumes with A's event id. */
  sharedStore: Analyzed & { alice: string; bob: string; status: number; leaked: boolean };
  dir: string;
}

/** The race's second face: a server request stranded on a GET stream (the instrumentation names them get-N) that closed. */
function strandedOnGetStream(f: Report['findings'][number]): boolean {
  return f.rule === 'orphaned-request' && /on (get-\d+) was stranded: \1 was closed/.test(f.message);
}

const perSession = (): EventStoreLike<unknown> => new OrderedEventStore() as EventStoreLike<unknown>;

async function withServer<T>(sdk: Sdk, dir: string, name: string, eventStore: () => EventStoreLike<unknown>, drive: (server: RunningServer, stop: Stoppables) => Promise<T>): Promise<Analyzed & T> {
  const logFile = join(dir, `${name}.ndjson`);
  const stop = new Stoppables();
  try {
    const recorder = stop.add(createRecorder(logFile, { node: `${sdk}/${name}` }), (r) => r.close());
    const server = stop.add(await START[sdk]({ recorder, eventStore, retryIntervalMs: 500 }), (s) => s.close());
    const result = await drive(server, stop);
    await stop.stopAll();
    return { ...result, logFile, records: readLog(logFile), report: await analyzeFiles([logFile]) };
  } finally {
    await stop.stopAll();
  }
}

export async function runConformance(sdk: Sdk): Promise<ConformanceRun> {
  const dir = join(tmpdir(), `resumescope-conformance-${sdk}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const suite = (version: SuiteVersion, scenario?: string, attempt = '') => (server: RunningServer) =>
    runSuite({
      suite: version,
      url: server.url,
      ...(scenario !== undefined && { scenario }),
      outDir: join(dir, `out-${version}-${scenario ?? 'active'}${attempt}`),
      timeoutMs: SUITE_TIMEOUT_MS,
      extraArgs: scenario === undefined ? ['--spec-version', SPEC_VERSION] : [],
    }).then((run) => ({ run }));
  // Now and then the suite's client races the SDK's GET stream: its second GET is refused 409 while the
  // first is still registered, a sampling request is stranded on it and the suite waits until it is killed
  // (seen once in five CI runs, on SDK 2.x; the analyzer flags it, rightly). The same race can also end the
  // run with an elicitation stranded on a GET stream the client closed, which the analyzer flags as
  // orphaned-request, rightly too (seen once in four full runs, on SDK 2.x). A run showing either is run
  // again, on a fresh server with its own log, up to SUITE_ATTEMPTS runs; the last run's result stands. Two
  // runs were once not enough (the race twice in a row, in one CI run of the 38th session).
  const raced = (r: Analyzed & { run: SuiteRun }) => r.run.timedOut || r.report.findings.some(strandedOnGetStream);
  const whole = async (version: SuiteVersion) => {
    let result = await withServer(sdk, dir, `suite-${version}`, perSession, suite(version));
    for (let attempt = 2; attempt <= SUITE_ATTEMPTS && raced(result); attempt++) {
      result = await withServer(sdk, dir, `suite-${version}-${attempt}`, perSession, suite(version, undefined, `-${attempt}`));
    }
    return result;
  };
  const suites = {
    '0.1.16': await whole('0.1.16'),
    '0.2.0-alpha.12': await whole('0.2.0-alpha.12'),
  };
  const polling = await withServer(sdk, dir, 'sse-polling-0.1.16', perSession, suite('0.1.16', 'server-sse-polling'));
  const getProbe = await withServer(sdk, dir, 'get-probe', perSession, async (s, stop) => ({ probe: await probeGetStream(s, stop) }));
  const exampleStore = await withServer(sdk, dir, 'get-probe-example-store', () => new InMemoryEventStore() as EventStoreLike<unknown>, async (s, stop) => ({
    probe: await probeGetStream(s, stop),
  }));
  const shared = new OrderedEventStore() as EventStoreLike<unknown>;
  const sharedStore = await withServer(sdk, dir, 'shared-event-store', () => shared, (s, stop) => probeForeignEventId(s, stop));
  return { suites, polling, getProbe, exampleStore, sharedStore, dir };
}
