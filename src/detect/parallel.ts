import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Report } from '../model/finding.js';
import type { Db } from '../store/db.js';
import { deriveTimeline } from '../store/derive.js';
import { refreshStatistics } from '../store/statistics.js';
import type { RuleModule } from './rule.js';
import { RULES } from './rules/index.js';
import { assembleOutputs, DETECT_CACHE_KIB, detect, detectOptionsOf, enabledRules, runRules, withCacheKiB, type RunOptions } from './run.js';
import type { DetectorOutput } from './types.js';
import type { FromRulesWorker, RulesWorkerData } from './rules-worker-protocol.js';

// The rules on both cores. The rules only read the timeline, so a second
// connection in a worker thread can judge some while this thread judges the
// others. Each side claims the next unit of rules from one shared counter, so
// that the faster side takes more; the report is assembled in catalogue order
// from both sides' outputs, the same bytes as a run on one thread.

/** The worker's script, next to this module once built (dist/); from src/ (vitest) there is none. */
export const RULES_WORKER_SCRIPT = new URL('./rules-worker.js', import.meta.url);

/**
 * From this many records on, a second thread pays: it starts, loads the rule modules and opens the
 * database in about 150 ms, and the rules over 20k records take about as long.
 */
export const PARALLEL_MIN_RECORDS = 20_000;

export interface ThreadOptions {
  /** `auto`: a second thread from PARALLEL_MIN_RECORDS on; `worker`: always, where it can; `inline`: never. */
  threads?: 'auto' | 'worker' | 'inline';
  /** The worker's script (tests). */
  script?: URL;
}

/** detect(), with the rules shared out between this thread and a worker thread where that can pay. */
export async function detectOnTwoThreads(db: Db, opts: RunOptions = {}, threads: ThreadOptions = {}): Promise<Report> {
  deriveTimeline(db);
  refreshStatistics(db);
  const script = threads.script ?? RULES_WORKER_SCRIPT;
  if (!canShare(db, opts, threads.threads ?? 'auto', script)) return detect(db, opts);
  const options = detectOptionsOf(opts);
  const rules = enabledRules(opts);
  const units = ruleUnits(rules);
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const data: RulesWorkerData = { path: db.name, options, units: units.map((u) => u.map((r) => r.id)), counter };
  const fromWorker = new Map<string, DetectorOutput>();
  const worker = new Worker(script, { workerData: data });
  const finished = new Promise<Error | undefined>((resolve) => {
    worker.on('message', (m: FromRulesWorker) => {
      if (m.type === 'unit') for (const [id, out] of m.outputs) fromWorker.set(id, out);
      else resolve(undefined);
    });
    worker.on('error', (e) => resolve(e));
    worker.on('exit', (code) => resolve(new Error(`the rules' worker thread exited with code ${code}`)));
  });
  const outputs = new Map<string, DetectorOutput>();
  try {
    withCacheKiB(db, DETECT_CACHE_KIB, () => {
      for (let i = Atomics.add(counter, 0, 1); i < units.length; i = Atomics.add(counter, 0, 1)) {
        for (const [id, out] of runRules(db, options, units[i]!)) outputs.set(id, out);
      }
    });
    await finished;
  } finally {
    await worker.terminate();
  }
  for (const [id, out] of fromWorker) outputs.set(id, out);
  // A worker that failed (it could not open the database, or a rule threw there) loses nothing: the
  // units it did not answer for run here, where a rule that throws throws as it would on one thread.
  const missing = units.filter((u) => u.some((r) => !outputs.has(r.id)));
  if (missing.length > 0) {
    withCacheKiB(db, DETECT_CACHE_KIB, () => {
      for (const unit of missing) for (const [id, out] of runRules(db, options, unit)) outputs.set(id, out);
    });
  }
  return assembleOutputs(db, rules, outputs);
}

function canShare(db: Db, opts: RunOptions, mode: 'auto' | 'worker' | 'inline', script: URL): boolean {
  if (mode === 'inline') return false;
  // The worker finds rules by id in the catalogue: what-if's variants are functions of this thread.
  if (opts.rules !== undefined && opts.rules.some((r, i) => r !== RULES[i])) return false;
  // A second connection needs a file: not ':memory:', not SQLite's anonymous temporary file.
  if (db.memory || db.name === '' || !existsSync(db.name)) return false;
  if (script.protocol !== 'file:' || !existsSync(fileURLToPath(script))) return false;
  if (mode === 'worker') return true;
  return (db.prepare('SELECT max(id) FROM records').pluck().get() as number | null ?? 0) >= PARALLEL_MIN_RECORDS;
}

/**
 * The rules in units a thread runs whole: rules that share a fact go together (the fact is computed
 * once per connection), in catalogue order within a unit. The longest units go first, so that
 * neither thread is left with a long one at the end: at 1M production-shaped lines the eight rules
 * of the reconnect facts took 5.5 s, engine-divergence 3.8 s, duplicate-tool-call 2.0 s, the rest
 * under 1 s each (README, Performance).
 */
export function ruleUnits(rules: readonly RuleModule[]): RuleModule[][] {
  let units: RuleModule[][] = [];
  for (const rule of rules) {
    const sharing = units.filter((u) => u.some((r) => r.facts?.some((f) => rule.facts?.includes(f))));
    units = [...units.filter((u) => !sharing.includes(u)), [...sharing.flat(), rule]];
  }
  const order = new Map(rules.map((r, i) => [r.id, i]));
  const first = (u: RuleModule[]) => Math.min(...u.map((r) => order.get(r.id)!));
  for (const u of units) u.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const cost = (u: RuleModule[]) => (u.length > 1 ? 10 + u.length : (LONG_RULES.get(u[0]!.id) ?? 0));
  return units.sort((a, b) => cost(b) - cost(a) || first(a) - first(b));
}

/** Single rules measured to take longest (seconds at 1M production-shaped lines), longest first. */
const LONG_RULES = new Map<string, number>([
  ['engine-divergence', 3.8],
  ['duplicate-tool-call', 2.0],
  ['answered-request-replayed', 0.9],
  ['write-to-superseded-stream', 0.75],
]);
