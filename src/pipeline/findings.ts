import { detectOnTwoThreads, type ThreadOptions } from '../detect/parallel.js';
import type { RunOptions, TableReport } from '../detect/run.js';
import type { ProgressListener } from '../model/progress.js';
import type { Db } from '../store/db.js';
import { deriveOnTwoThreads } from '../store/derive-threads.js';

// A loaded database to findings: the timeline derived, then the rules run. Every front end that
// judges a loaded log (analyze, explain, tui, whatif, the API) goes through here; watch judges
// batch by batch (live/).

export interface FindingsSteps {
  /** Told each stage as it begins (derive, detect), for a progress display. */
  onProgress?: ProgressListener;
  /** Run once the timeline is derived, before the rules: a check that may throw (a --session the log does not hold). */
  onDerived?: () => void;
  /** The second thread, for derive and the rules alike (`threads`); the rules worker's script (tests). */
  threads?: ThreadOptions;
}

export async function findingsOf(db: Db, opts: RunOptions = {}, steps: FindingsSteps = {}): Promise<TableReport> {
  // Derive on its own first (detect's own derive then finds nothing to do), so that its stage shows.
  steps.onProgress?.({ type: 'stage', stage: 'derive' });
  await deriveOnTwoThreads(db, { ...(steps.threads?.threads !== undefined && { threads: steps.threads.threads }) });
  steps.onDerived?.();
  steps.onProgress?.({ type: 'stage', stage: 'detect' });
  return detectOnTwoThreads(db, opts, steps.threads);
}
