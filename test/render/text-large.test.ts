import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/model/finding.js';
import { renderJson } from '../../src/render/json.js';
import { DEFAULT_MAX_FINDINGS_PER_RULE, renderText } from '../../src/render/text.js';
import { lineText, makeReport } from './fixture.js';

// A "bad server": tens of thousands of findings of one rule over a few sessions.
function manyTruncations(n: number): Finding[] {
  return Array.from({ length: n }, (_, i) => ({
    rule: 'silent-truncation',
    severity: 'error',
    session: `S-${i % 3}`,
    at: new Date(Date.UTC(2026, 10, 9, 10) + i * 1000).toISOString(),
    message: `truncation #${i}`,
    evidence: [{ file: 'server-b.ndjson', line: 2 }],
  }));
}

describe('text report with tens of thousands of findings', () => {
  const base = makeReport();
  const report = { ...base, findings: [...base.findings.filter((f) => f.rule !== 'silent-truncation'), ...manyTruncations(20_000)] };

  it('shows the first few of a rule with evidence, counts the rest per session, and says how to see them all', () => {
    const text = renderText(report, { lineText });
    expect(text).toContain('silent-truncation (20000)');
    expect(text).toContain(`truncation #${DEFAULT_MAX_FINDINGS_PER_RULE - 1}\n`);
    expect(text).not.toContain(`truncation #${DEFAULT_MAX_FINDINGS_PER_RULE}\n`);
    const rest = 20_000 - DEFAULT_MAX_FINDINGS_PER_RULE;
    // #10…#19999 left over three sessions, the busiest first.
    expect(text).toContain(`… ${rest} more findings in 3 sessions: S-1 (6664), S-0 (6663), S-2 (6663)`);
    expect(text).toContain('see them all: --rule silent-truncation --max-findings 20000, --session <id>, or --format json|sarif|junit');
    expect(text.split('\n').length).toBeLessThan(200);
  });

  it('shows every finding when asked, and leaves rules under the cap as they were', () => {
    const all = renderText(report, { lineText, maxFindings: 20_000 });
    expect(all).toContain('truncation #19999\n');
    expect(all).not.toContain('more findings in');
    expect(renderText(base, { lineText })).not.toContain('more findings in');
  });

  it('json still carries every finding', () => {
    expect(JSON.parse(renderJson(report)).findings).toHaveLength(report.findings.length);
  });
});

describe('text report with more not-knowable lines than a call takes arguments', () => {
  it('renders them (a log of 50,000 sessions whose creation it does not hold crashed it)', () => {
    const report = makeReport([]);
    const word = (i: number) => Array.from(i.toString(26), (d) => String.fromCharCode(97 + parseInt(d, 26))).join('');
    report.not_knowable = Array.from({ length: 130_000 }, (_, i) => ({ rule: 'silent-fork' as const, session: `S-${i}`, reason: `reason ${word(i)}` }));
    const text = renderText(report, { lineText });
    expect(text).toContain('NOT KNOWABLE in 130000 sessions');
    expect(text).toContain('reason bbbb');
  });
});
