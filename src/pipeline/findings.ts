import { detectOnTwoThreads, type ThreadOptions } from '../detect/parallel.js';
import { ReportCache } from '../detect/report-cache.js';
import type { RunOptions, TableReport } from '../detect/run.js';
import type { ProgressListener } from '../model/progress.js';
import type { Db } from '../store/db.js';
import { deriveOnTwoThreads } from '../store/derive-threads.js';

// A loaded database to findings: the timeline derived, then the rules run, each on two threads where
// that pays. Every front end that judges a loaded log (analyze, explain, tui, whatif, the API) goes
// through here; watch judges batch by batch (live/), through derived.ts, which derives on this thread.

export interface FindingsSteps {
  /** Told each stage as it begins (derive, detect), for a progress display. */
  onProgress?: ProgressListener;
  /** Run once the timeline is derived, before the rules: a check that may throw (a --session the log does not hold). */
  onDerived?: () => void;
  /** The second thread, for derive and the rules alike (`threads`); the rules worker's script (tests). */
  threads?: ThreadOptions;
  /**
   * The database is a --db file a user keeps: its findings cache (detect/report-cache.ts) is read, and written
   * after a judgement where it can be. Not for a one-off database: it is judged once.
   */
  cached?: boolean;
}

export async function findingsOf(db: Db, opts: RunOptions = {}, steps: FindingsSteps = {}): Promise<TableReport> {
  // Derive on its own stage, so that it shows: detect takes a derived database.
  steps.onProgress?.({ type: 'stage', stage: 'derive' });
  await deriveOnTwoThreads(db, { ...(steps.threads?.threads !== undefined && { threads: steps.threads.threads }) });
  steps.onDerived?.();
  // A database judged before has nothing left to derive: a kept report spares the rules only.
  const cache = steps.cached === true ? ReportCache.of(db, opts) : undefined;
  const kept = cache?.read();
  if (kept !== undefined) return kept;
  steps.onProgress?.({ type: 'stage', stage: 'detect' });
  const report = await detectOnTwoThreads(db, opts, steps.threads);
  cache?.keep(report);
  return report;
}
