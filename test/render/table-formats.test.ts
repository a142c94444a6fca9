import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectIntoTable } from '../../src/detect/run.js';
import { derive } from '../../src/pipeline/derived.js';
import { lineTextResolver } from '../../src/detect/evidence.js';
import { inMemory } from '../../src/findings/recount.js';
import { filterReport } from '../../src/findings/filter.js';
import { render, renderChunks } from '../../src/render/index.js';
import { workspaceOf } from '../helpers/logs.js';

// analyze renders JSON, SARIF, JUnit, text and markdown straight from the report's table, a page or a rule
// at a time; the library and the other front ends render the same report from memory. Both must
// write the same bytes, also after a filter narrowed the table.

const SAMPLES = ['replay-integrity', 'writers', 'http-edge', 'session-continuity', 'stream-vs-session'];

describe('a report read from its table', () => {
  it('renders every format but html exactly as the same report in memory', async () => {
    const lines = SAMPLES.flatMap((name) => readFileSync(`samples/${name}.ndjson`, 'utf8').split('\n').filter((l) => l.trim() !== ''));
    const ws = await workspaceOf(lines);
    derive(ws.db);
    const table = detectIntoTable(ws.db);
    expect(table.findings.length).toBeGreaterThan(15);
    const narrowed = filterReport(table, { rules: ['dual-writer', 'silent-truncation', 'duplicate-tool-call', 'engine-divergence'] });
    expect(narrowed.findings.length).toBeGreaterThan(3);
    expect(narrowed.findings.length).toBeLessThan(table.findings.length);
    const opts = { lineText: lineTextResolver(ws.db), toolVersion: '1.2.3', cwd: process.cwd(), maxFindings: 2, failOn: 'error' as const };
    for (const report of [table, narrowed]) {
      for (const format of ['json', 'sarif', 'junit', 'text', 'markdown'] as const) {
        const streamed = [...renderChunks(format, report, opts)].join('');
        expect(streamed, format).toBe(render(format, inMemory(report), opts));
      }
    }
    ws.db.close();
  });
});
