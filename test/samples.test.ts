import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeFiles } from '../src/api.js';

// samples/README.md is the promise: every row's findings, exactly, per rule and count.
const table = readFileSync(new URL('../samples/README.md', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.startsWith('| `'))
  .map((l) => {
    const cells = l.split('|').map((c) => c.trim());
    const path = cells[1]!.replace(/`/g, '');
    const findings = cells[3] === 'none' ? {} : Object.fromEntries(cells[3]!.split(',').map((f) => {
      const [rule, n] = f.trim().split('×');
      return [rule!, Number(n ?? 1)];
    }));
    // A row read with a flag says so in its story.
    return { path, findings, jsonArray: cells[2]!.includes('read with `--json-array`'), csv: cells[2]!.includes('read with `--csv`') };
  });

describe('samples give the findings samples/README.md says they give', () => {
  it('the table lists every sample', () => {
    expect(table.length).toBeGreaterThanOrEqual(15);
  });
  for (const row of table) {
    it(row.path, async () => {
      // A folder row is read whole, subfolders too (k8s/ keeps a folder per pod).
      const report = await analyzeFiles([`samples/${row.path}`], { recursive: true, jsonArray: row.jsonArray, csv: row.csv });
      expect(report.summary.rejected_lines).toBe(0);
      expect(report.summary.by_rule).toEqual(row.findings);
      for (const f of report.findings) expect(f.evidence.length).toBeGreaterThan(0);
    });
  }
});
