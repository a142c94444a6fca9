import { parentPort, workerData } from 'node:worker_threads';
import { openDb } from '../store/db.js';
import { ruleOf } from './rules/index.js';
import { DETECT_CACHE_KIB, runRules, withCacheKiB } from './run.js';
import type { FromRulesWorker, RulesWorkerData } from './rules-worker-protocol.js';

// The worker thread of detect/parallel.ts: claims units of rules from the shared counter and judges
// them over its own read-only connection, until none is left.

const { path, options, units, counter } = workerData as RulesWorkerData;
const post = (m: FromRulesWorker) => parentPort!.postMessage(m);
const db = openDb(path, { readonly: true });
try {
  withCacheKiB(db, DETECT_CACHE_KIB, () => {
    for (let i = Atomics.add(counter, 0, 1); i < units.length; i = Atomics.add(counter, 0, 1)) {
      post({ type: 'unit', outputs: [...runRules(db, options, units[i]!.map(ruleOf))] });
    }
  });
} finally {
  db.close();
}
post({ type: 'done' });
