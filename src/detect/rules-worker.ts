import { parentPort, workerData } from 'node:worker_threads';
import { openDb } from '../store/db.js';
import { ruleOf } from './rules/index.js';
import { DETECT_CACHE_KIB, runRules, withCacheKiB } from './run.js';
import { summarize } from './summary.js';
import type { FromRulesWorker, RulesWorkerData } from './rules-worker-protocol.js';

// The worker thread of detect/parallel.ts: claims units of work from the shared counter and does them
// over its own read-only connection, until none is left. Each rule's output is sent as soon as the
// rule is done, so that neither thread holds more than a rule's findings.

const { path, options, units, counter } = workerData as RulesWorkerData;
const post = (m: FromRulesWorker) => parentPort!.postMessage(m);
const db = openDb(path, { readonly: true });
try {
  withCacheKiB(db, DETECT_CACHE_KIB, () => {
    for (let i = Atomics.add(counter, 0, 1); i < units.length; i = Atomics.add(counter, 0, 1)) {
      const unit = units[i]!;
      if (unit === 'summary') post({ type: 'summary', summary: summarize(db) });
      else runRules(db, options, unit.rules.map(ruleOf), (rule, output) => post({ type: 'rule', rule, output }));
    }
  });
} finally {
  db.close();
}
post({ type: 'done' });
