import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFiles } from '../../src/api.js';

// Regression tests from ../shared/repros (copied into fixtures/): the minimal logs where the analyzer
// misjudged, with the (rule, session) pairs of severity warning and above that rules.md version 2 gives.
const dir = join(fileURLToPath(new URL('.', import.meta.url)), 'fixtures');

const expected: Record<string, string[]> = {
  'A-silent-fork-on-cross-node-resume.ndjson': [],
  'B1-proxy-cursor-matched-to-other-session.ndjson': [],
  'B1b-proxy-lei-without-session-matched-to-other-session.ndjson': ['event-id-without-session null'],
  'B2-cross-principal-on-foreign-cursor-with-nothing-replayed.ndjson': ['foreign-event-id S-QUINN'],
  'D-proxy-fork-after-404-not-knowable.ndjson': ['silent-fork 20ea73d21f746f694019493f277d1481'],
  'E-404-storm-unjoined-proxy-notification-merged.ndjson': ['404-storm S-E'],
  'F1-stale-writer-on-stream-opened-by-fresh-mint.ndjson': ['stale-writer-blocks-reconnect S-NEW'],
  'F2-dual-writer-on-stream-opened-by-fresh-mint.ndjson': ['dual-writer S-NEW', 'write-to-superseded-stream S-NEW'],
  'G-state-change-skipped-for-foreign-cursor.ndjson': [
    'cross-principal-replay S-PIA',
    'foreign-event-id S-PIA',
    'resume-across-state-change S-PIA',
  ],
  'H-attach-after-resumed-post-stream.ndjson': ['dual-writer S1'],
};

describe('repros (rules.md version 2)', () => {
  it('has an expectation for every fixture', () => {
    expect(readdirSync(dir).filter((f) => f.endsWith('.ndjson')).sort()).toEqual(Object.keys(expected).sort());
  });

  for (const [file, pairs] of Object.entries(expected)) {
    it(`${file}: ${pairs.join(', ') || 'no finding'}`, async () => {
      const report = await analyzeFiles([join(dir, file)]);
      const got = report.findings
        .filter((f) => f.severity !== 'info')
        .map((f) => `${f.rule} ${f.session}`)
        .sort();
      expect(got).toEqual([...pairs].sort());
    });
  }
});
