import { parentPort, workerData } from 'node:worker_threads';
import { openDb } from '../store/db.js';
import { FindingsFile } from './findings-file.js';
import { ruleOf } from './rules/index.js';
import { DETECT_CACHE_KIB, runRules, withCacheKiB } from './run.js';
import { summarize } from './summary.js';
import type { FromRulesWorker, RulesWorkerData } from './rules-worker-protocol.js';

// The worker thread of detect/parallel.ts: claims units of work from the shared counter and does them
// over its own read-only connection, until none is left. Each rule's findings are set down in the
// findings file as soon as the rule is done, and the rule is reported done after they are committed.

const { path, findingsPath, options, units, counter } = workerData as RulesWorkerData;
const post = (m: FromRulesWorker) => parentPort!.postMessage(m);
const db = openDb(path, { readonly: true });
const findings = FindingsFile.create(findingsPath);
try {
  withCacheKiB(db, DETECT_CACHE_KIB, () => {
    for (let i = Atomics.add(counter, 0, 1); i < units.length; i = Atomics.add(counter, 0, 1)) {
      const unit = units[i]!;
      if (unit === 'summary') post({ type: 'summary', summary: summarize(db, options) });
      else {
        runRules(
          db, options, unit.rules.map(ruleOf),
          (rule, output) => {
            findings.add(output.findings);
            post({ type: 'rule', rule, notKnowable: output.notKnowable });
          },
          (_rule, handedOver) => findings.add(handedOver),
        );
      }
    }
  });
} finally {
  findings.close();
  db.close();
}
post({ type: 'done' });
