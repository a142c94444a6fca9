import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { RuleId } from '../../src/detect/rules/index.js';
import { analyzeFiles, describeFindings, errorsOrWorse, findingsOf } from './support/analysis.js';
import * as scenarios from './support/scenarios.js';
import { SCENARIO_FILES } from './support/scenarios.js';
import { Stoppables } from './support/stoppables.js';

// samples/sdk/ holds real logs of the end-to-end scenarios. With
// RESUMESCOPE_WRITE_SAMPLES=1 this file rewrites them; otherwise it checks
// that the committed ones still read whole and still show what they show.

const SAMPLES_DIR = fileURLToPath(new URL('../../samples/sdk/', import.meta.url));
const WRITING = process.env.RESUMESCOPE_WRITE_SAMPLES === '1';

/** What each sample demonstrates: rules it must raise, and whether it must stay free of errors. */
const EXPECTED: Record<string, { raises: RuleId[]; clean?: boolean; never?: RuleId[] }> = {
  [SCENARIO_FILES.cleanResume]: { raises: [], clean: true },
  [SCENARIO_FILES.restart]: { raises: [], never: ['silent-fork'] },
  [SCENARIO_FILES.sharedStore]: { raises: ['foreign-event-id', 'cross-principal-replay'] },
  [SCENARIO_FILES.pendingOnAttach]: { raises: ['pending-not-reemitted', 'orphaned-request'] },
  [SCENARIO_FILES.exampleStoreGetResume]: { raises: ['silent-truncation', 'write-to-superseded-stream'] },
};

const stop = new Stoppables();
afterAll(() => stop.stopAll());

describe.runIf(WRITING)('writing samples/sdk', () => {
  it('runs every scenario with samples/sdk as its log directory', async () => {
    mkdirSync(SAMPLES_DIR, { recursive: true });
    const runs = [
      scenarios.cleanResume,
      scenarios.serverRestart,
      scenarios.sharedEventStore,
      scenarios.pendingOnAttach,
      scenarios.exampleStoreGetResume,
    ];
    for (const run of runs) {
      const { records } = await run(SAMPLES_DIR, stop);
      expect(records.length).toBeGreaterThan(0);
    }
  }, 30_000);
});

describe.skipIf(WRITING)('committed samples/sdk', () => {
  it('holds one log per scenario, and nothing else', () => {
    const logs = readdirSync(SAMPLES_DIR).filter((f) => f.endsWith('.ndjson'));
    expect(logs.sort()).toEqual(Object.values(SCENARIO_FILES).sort());
  });

  describe.each(Object.entries(EXPECTED))('%s', (file, expected) => {
    const path = join(SAMPLES_DIR, file);

    it('reads whole: every line a record, none rejected or ignored', async () => {
      const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '');
      const report = await analyzeFiles([path]);
      expect(report.summary).toMatchObject({ records: lines.length, rejected_lines: 0, ignored_lines: 0 });
    });

    it('still shows what it was committed to show', async () => {
      const report = await analyzeFiles([path]);
      for (const rule of expected.raises) {
        expect(findingsOf(report, rule), `${rule}\n${describeFindings(report)}`).not.toEqual([]);
      }
      for (const rule of expected.never ?? []) expect(findingsOf(report, rule), describeFindings(report)).toEqual([]);
      if (expected.clean === true) expect(errorsOrWorse(report), describeFindings(report)).toEqual([]);
    });
  });
});
