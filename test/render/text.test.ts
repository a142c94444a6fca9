import { describe, expect, it } from 'vitest';
import { renderText } from '../../src/render/text.js';
import { FINDINGS, LOG_LINES, lineText, makeReport } from './fixture.js';

const ANSI = /\u001b\[[\d;]*m/;

describe('renderText', () => {
  const out = renderText(makeReport(), { lineText });
  const lines = out.split('\n');

  it('opens with one summary line: records, sessions, findings by severity, rejected and ignored lines', () => {
    expect(lines[0]).toBe(
      'resumescope: 16 records, 5 sessions · 6 findings (1 critical, 3 error, 1 warning, 1 info) · 2 rejected lines, 1 ignored line',
    );
    expect(renderText(makeReport([])).split('\n')[0]).toContain('no findings');
  });

  it('groups findings by severity, critical first, then by rule', () => {
    const headings = lines.map((l) => /^(CRITICAL|ERROR|WARNING|INFO|NOT KNOWABLE)\b/.exec(l)?.[1]).filter(Boolean);
    expect(headings).toEqual(['CRITICAL', 'ERROR', 'WARNING', 'INFO', 'NOT KNOWABLE']);
    const rules = lines.filter((l) => /^ {2}\S/.test(l)).map((l) => l.trim().split(' ')[0]);
    expect(rules.slice(0, 6)).toEqual([
      'cross-principal-replay',
      'silent-truncation',
      'event-id-without-session',
      'dual-writer',
      '404-storm',
      'engine-divergence',
    ]);
    expect(renderText(makeReport(FINDINGS.filter((f) => f.severity === 'warning')))).not.toMatch(/^(CRITICAL|ERROR)$/m);
  });

  it('shows each finding with time, session and message, and quotes its evidence lines from both files', () => {
    const at = lines.findIndex((l) => /^ {4}#\d+ {2}2026-11-09T10:00:09\.000Z {2}session S2$/.test(l));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('      attach opened g8 while standalone stream g7 was neither closed nor fenced');
    expect(lines[at + 2]).toBe(`        server-a.ndjson:7  ${LOG_LINES['server-a.ndjson']![6]}`);
    expect(lines[at + 3]).toMatch(/^ {8}server-b\.ndjson:4 {2}\{"ts":"2026-11-09T10:00:09\.000Z","kind":"upgrade"/);
    expect(out).toContain('session (no session)');
  });

  it('cuts evidence lines only when very long (about 320 characters)', () => {
    const quoted = lines.filter((l) => l.includes('server-b.ndjson:5  '));
    expect(quoted).toHaveLength(1);
    const text = quoted[0]!.split('server-b.ndjson:5  ')[1]!;
    expect(LOG_LINES['server-b.ndjson']![4]!.length).toBeGreaterThan(400);
    expect(text.length).toBe(320);
    expect(text.endsWith('…')).toBe(true);
  });

  it('shows the location alone when a line cannot be resolved', () => {
    expect(renderText(makeReport([FINDINGS[4]!]))).toMatch(/^ {8}server-a\.ndjson:7$/m);
  });

  it('lists not-knowable rules compactly, one line per rule and reason with its sessions', () => {
    const orphaned = lines.filter((l) => l.includes('orphaned-request:'));
    expect(orphaned).toEqual(['  orphaned-request: proxy log: pending server requests are not visible (sessions S4, S5)']);
    expect(out).toContain('  pending-not-reemitted: upgrade has no reemitted counter (session S4)');
  });

  it('ends with the rejected-line count and how to see them', () => {
    expect(lines.at(-2)).toMatch(/^2 rejected lines .*`resumescope query rejected`/);
    const clean = makeReport();
    clean.summary.rejected_lines = 0;
    expect(renderText(clean)).not.toContain('query rejected');
  });

  it('uses ANSI colour only when asked', () => {
    expect(out).not.toMatch(ANSI);
    const coloured = renderText(makeReport(), { lineText, color: true });
    expect(coloured).toMatch(ANSI);
    expect(coloured.replace(new RegExp(ANSI.source, 'g'), '')).toBe(out);
  });
});
