import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Report } from '../model/finding.js';
import type { FindingTable } from './finding-table.js';
import type { Db } from '../store/db.js';
import { assertDerived } from '../store/derive.js';
import { FINDINGS_FILE, scratchFolderIfAny } from '../store/scratch-db.js';
import { secondThreadCan, type ThreadMode } from '../store/second-connection.js';
import { refreshStatistics } from '../store/statistics.js';
import type { RuleModule } from './rule.js';
import type { DetectOptions } from './types.js';
import { RULES } from './rules/index.js';
import { DETECT_CACHE_KIB, detectIntoTable, detectOptionsOf, enabledRules, ReportSink, runRules, withCacheKiB, withCacheKiBAsync, type RunOptions, type TableReport } from './run.js';
import type { FromRulesWorker, RulesWorkerData } from './rules-worker-protocol.js';
import { summarize, type InputSummary } from './summary.js';

// The rules on both cores. The rules and the input's summary only read the
// timeline, so a second connection in a worker thread can do some of them while
// this thread does the others. Each side claims the next unit of work from one
// shared counter, so that the faster side takes more; the report is assembled
// in catalogue order from both sides' outputs, the same bytes as one thread's.

/** The worker's script, next to this module once built (dist/); from src/ (vitest) there is none. */
const RULES_WORKER_SCRIPT = new URL('./rules-worker.js', import.meta.url);

export interface ThreadOptions {
  /** `auto`: a second thread from SECOND_THREAD_MIN_RECORDS records on; `worker`: always, where it can; `inline`: never. */
  threads?: ThreadMode;
  /** The worker's script (tests). */
  script?: URL;
}

/** detectDerived(), with the rules and the summary shared out between this thread and a worker thread where that can pay. */
export async function detectOnTwoThreads(db: Db, opts: RunOptions = {}, threads: ThreadOptions = {}): Promise<TableReport> {
  assertDerived(db, 'detect');
  refreshStatistics(db);
  const script = threads.script ?? RULES_WORKER_SCRIPT;
  if (!secondThreadCan(db, threads.threads ?? 'auto', script)) return detectIntoTable(db, opts);
  const options = detectOptionsOf(opts);
  const rules = enabledRules(opts);
  const units = workUnits(rules);
  // A rule the caller replaced (what-if's variants: functions of this thread) is judged here, and so is its unit.
  const catalogue: ReadonlySet<RuleModule> = new Set(RULES);
  const shared = units.filter((u) => u === 'summary' || u.every((r) => catalogue.has(r)));
  const ownOnly = units.filter((u) => !shared.includes(u));
  // The worker's findings file needs a folder: where TMPDIR takes none, this thread judges alone.
  const folder = scratchFolderIfAny();
  if (folder === undefined) return detectIntoTable(db, opts);
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const findingsPath = join(folder.path, FINDINGS_FILE);
  const data: RulesWorkerData = {
    path: db.name,
    findingsPath,
    options: withoutRules(options),
    units: shared.map((u) => (u === 'summary' ? u : { rules: u.map((r) => r.id) })),
    counter,
  };
  const sink = new ReportSink(db);
  let summary: InputSummary | undefined;
  const worker = new Worker(script, { workerData: data, resourceLimits: RULES_WORKER_LIMITS });
  const finished = new Promise<void>((resolve) => {
    worker.on('message', (m: FromRulesWorker) => {
      if (m.type === 'rule') sink.takeStored(m.rule, m.notKnowable);
      else if (m.type === 'summary') summary = m.summary;
      else resolve();
    });
    // A worker that fails is made up for below.
    worker.on('error', () => resolve());
    worker.on('exit', () => resolve());
  });
  const work = (unit: RuleModule[] | 'summary') => {
    if (unit === 'summary') summary = summarize(db, options);
    else runRules(db, options, unit, sink.take, sink.takeEarly);
  };
  try {
    try {
      await withCacheKiBAsync(db, DETECT_CACHE_KIB, async () => {
        const next = () => new Promise((resolve) => setImmediate(resolve));
        for (const unit of ownOnly) {
          work(unit);
          // The worker's messages (a rule done, what it could not judge) wait until this thread takes them: take them between units.
          await next();
        }
        for (let i = Atomics.add(counter, 0, 1); i < shared.length; i = Atomics.add(counter, 0, 1)) {
          work(shared[i]!);
          await next();
        }
      });
      await finished;
    } finally {
      await worker.terminate();
    }
    sink.adoptStored(findingsPath);
    // A worker that failed (it could not open the database, or a rule threw there) loses nothing: the
    // rules it did not report are run here, once it has stopped, where a rule that throws throws as on one thread.
    withCacheKiB(db, DETECT_CACHE_KIB, () => {
      if (summary === undefined) summary = summarize(db, options);
      runRules(db, options, rules.filter((r) => !sink.has(r.id)), sink.take, sink.takeEarly);
    });
    return sink.report(summary!);
  } catch (err) {
    sink.discard();
    throw err;
  } finally {
    folder.remove();
  }
}

/**
 * V8 sizes a worker's young generation for throughput (about 48 MB at this machine's defaults), and the
 * rules' garbage filled it: at 3M production lines detect peaked at 303 MB, with 4 MB at 253 MB, no slower.
 */
const RULES_WORKER_LIMITS = { maxYoungGenerationSizeMb: 4 };

/** The options without a caller's rules, which detectOptionsOf keeps: functions cannot cross to a thread. */
function withoutRules(options: DetectOptions): DetectOptions {
  const { rules: _rules, ...rest } = options as DetectOptions & Pick<RunOptions, 'rules'>;
  return rest;
}

/** Rules that share a fact, judged together so that each connection computes the fact once. */
export function ruleUnits(rules: readonly RuleModule[]): RuleModule[][] {
  let units: RuleModule[][] = [];
  for (const rule of rules) {
    const sharing = units.filter((u) => u.some((r) => r.facts?.some((f) => rule.facts?.includes(f))));
    units = [...units.filter((u) => !sharing.includes(u)), [...sharing.flat(), rule]];
  }
  const order = new Map(rules.map((r, i) => [r.id, i]));
  for (const u of units) u.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return units.sort((a, b) => order.get(a[0]!.id)! - order.get(b[0]!.id)!);
}

/**
 * The work of a run, in the order the threads claim it: the rule units and the input's summary, the
 * longest first, so that neither thread is left with a long one at the end.
 */
export function workUnits(rules: readonly RuleModule[]): (RuleModule[] | 'summary')[] {
  const cost = (u: RuleModule[] | 'summary') =>
    u === 'summary' ? (LONG_WORK.get('summary') ?? 0) : (LONG_WORK.get(u[0]!.id) ?? (u.length > 1 ? 10 + u.length : 0));
  // A stable sort: units of equal cost stay in catalogue order.
  return [...ruleUnits(rules), 'summary' as const].sort((a, b) => cost(b) - cost(a));
}

/**
 * The work measured to take longest, in seconds at 1M production-shaped lines (README, Performance).
 * A unit of rules sharing facts ranks above all of them (the eight rules of the reconnect facts took 4.4 s),
 * but where it is listed here by its first rule: the two that walk the pending requests took 1.0 s.
 */
const LONG_WORK = new Map<string, number>([
  ['engine-divergence', 2.8],
  ['pending-not-reemitted', 1.0],
  ['duplicate-reemit', 1.0],
  ['duplicate-tool-call', 2.0],
  ['summary', 1.3],
  ['answered-request-replayed', 0.9],
  ['write-to-superseded-stream', 0.75],
]);
