import { describe, expect, it } from 'vitest';
import { renderText } from '../../src/render/text.js';
import { FINDINGS, LOG_LINES, lineRecords, lineText, makeReport } from './fixture.js';

const ANSI = /\u001b\[[\d;]*m/;

describe('renderText', () => {
  const out = renderText(makeReport(), { lineText, lineRecords });
  const lines = out.split('\n');
  const raw = renderText(makeReport(), { lineText, lineRecords, raw: true }).split('\n');

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

  it('shows each finding with time, session and message, and sums up its evidence lines from both files', () => {
    const at = lines.findIndex((l) => /^ {4}#\d+ {2}2026-11-09T10:00:09\.000Z {2}session S2$/.test(l));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('      attach opened g8 while standalone stream g7 was neither closed nor fenced');
    // The finding's session and day are in its heading, so its evidence leaves them out.
    expect(lines[at + 2]).toBe('        server-a.ndjson:7  10:00:05.100 stream.opened g7 via get node=a');
    expect(lines[at + 3]).toBe('        server-b.ndjson:4  10:00:09.000 upgrade attach 200 from none →g8 replayed=0 reemitted=0 node=b');
    expect(out).toContain('session (no session)');
    expect(out).toContain('server-b.ndjson:3  10:00:06.000 upgrade resume 200 from 77 →g9 replayed=3 node=b');
    // A line of another session than the finding's names it.
    const other = renderText(makeReport([{ ...FINDINGS[4]!, evidence: [{ file: 'server-a.ndjson', line: 1 }] }]), { lineText, lineRecords });
    expect(other).toContain('server-a.ndjson:1  10:00:00.000 session.created session=S1 principal=alice node=a');
  });

  it('quotes the raw lines instead with raw (--raw)', () => {
    const at = raw.findIndex((l) => /^ {4}#\d+ {2}2026-11-09T10:00:09\.000Z {2}session S2$/.test(l));
    expect(raw[at + 2]).toBe(`        server-a.ndjson:7  ${LOG_LINES['server-a.ndjson']![6]}`);
    expect(raw[at + 3]).toMatch(/^ {8}server-b\.ndjson:4 {2}\{"ts":"2026-11-09T10:00:09\.000Z","kind":"upgrade"/);
  });

  it('cuts raw evidence lines only when very long (about 320 characters), summaries at a whole field', () => {
    const quoted = raw.filter((l) => l.includes('server-b.ndjson:5  '));
    expect(quoted).toHaveLength(1);
    const text = quoted[0]!.split('server-b.ndjson:5  ')[1]!;
    expect(LOG_LINES['server-b.ndjson']![4]!.length).toBeGreaterThan(400);
    expect(text.length).toBe(320);
    expect(text.endsWith('…')).toBe(true);
    expect(lines.filter((l) => l.includes('server-b.ndjson:5  '))).toEqual(['        server-b.ndjson:5  10:01:00.000 request.answered r-0 404 node=b']);
    for (const l of lines.filter((x) => /^ {8}server-/.test(x))) expect(l.length).toBeLessThanOrEqual(8 + 'server-b.ndjson:5  '.length + 90);
  });

  it('escapes control and bidi characters a log value carries', () => {
    const hostile = () => ({ records: [{ kind: 'stream.opened', ts_ms: 0, session: 'S2', stream: 'g\u001b[2Jx\u202e', via: 'get' }] });
    const text = renderText(makeReport([FINDINGS[4]!]), { lineText, lineRecords: hostile });
    expect(text).not.toMatch(/[\u001b\u202e]/);
    expect(text).toContain('g\\u001b[2Jx\\u202e');
  });

  it('shows the location alone when a line cannot be resolved', () => {
    expect(renderText(makeReport([FINDINGS[4]!]))).toMatch(/^ {8}server-a\.ndjson:7$/m);
  });

  it('lists not-knowable rules compactly: the sessions once, then one line per rule and reason kind', () => {
    const section = lines.slice(lines.findIndex((l) => l.startsWith('NOT KNOWABLE')));
    expect(section[0]).toMatch(/^NOT KNOWABLE in 2 sessions \(/);
    expect(section[1]).toBe('  sessions S4, S5');
    expect(section.filter((l) => l.includes('orphaned-request:'))).toEqual(['  orphaned-request: proxy log: pending server requests are not visible (all 2 sessions)']);
    expect(out).toContain('  pending-not-reemitted: upgrade has no reemitted counter (S4)');
  });

  it('groups reasons that differ only by their session and time, and names each session once', () => {
    const ids = ['3b9d2c1e-7a4f-4e58-9c0d-2f6b8a1e5d73', '3b9d2c1e-0000-4e58-9c0d-2f6b8a1e5d73', 'c8e41f02-5b3a-4d9e-8f17-6a2d0c9b4e15'];
    const report = makeReport([]);
    report.not_knowable = [
      ...ids.map((s, i) => ({ rule: 'silent-fork' as const, session: s, reason: `proxy log only: the evictions of ${s} are not visible at 2026-11-09T10:00:0${i}.000Z` })),
      { rule: 'silent-fork', session: ids[0]!, reason: `proxy log only: whether ${ids[0]} was known cannot be told` },
      { rule: 'dual-writer', session: ids[2]!, reason: 'proxy log only: streams are not visible' },
    ];
    const section = renderText(report).split('\n').filter((l) => l.startsWith('  ') || l.startsWith('NOT'));
    expect(section).toEqual([
      'NOT KNOWABLE in 3 sessions (the logs do not hold the facts these rules need; nothing was guessed)',
      `  sessions ${ids[1]}, ${ids[0]}, ${ids[2]}`,
      '  proxy log only:',
      '    silent-fork: the evictions of the session are not visible at 2026-11-09T10:00:01.000Z (+3 similar) (all 3 sessions)',
      '    dual-writer: streams are not visible (c8e41f02…)',
    ]);
    for (const id of ids) expect(section.join('\n').split(id)).toHaveLength(2);
    const hidden = renderText(report, { notKnowable: false });
    expect(hidden).not.toContain('evictions');
    expect(hidden).toContain('NOT KNOWABLE: 2 rules could not be judged in 3 sessions (hidden by --no-not-knowable)');
  });

  it('ends with the rejected-line count and how to see them', () => {
    expect(lines.at(-2)).toMatch(/^2 rejected lines .*`resumescope query rejected`/);
    const clean = makeReport();
    clean.summary.rejected_lines = 0;
    expect(renderText(clean)).not.toContain('query rejected');
  });

  it('uses ANSI colour only when asked', () => {
    expect(out).not.toMatch(ANSI);
    const coloured = renderText(makeReport(), { lineText, lineRecords, color: true });
    expect(coloured).toMatch(ANSI);
    expect(coloured.replace(new RegExp(ANSI.source, 'g'), '')).toBe(out);
  });
});

describe('file names in the text report', () => {
  it('are relative to the current folder when under it, and as stored otherwise', () => {
    const report = makeReport([{ ...FINDINGS[4]!, evidence: [{ file: '/srv/logs/a.ndjson', line: 3 }, { file: '/var/b.ndjson', line: 4 }, { file: 'c.ndjson', line: 5 }] }]);
    const out = renderText(report, { cwd: '/srv' });
    expect(out).toMatch(/^ {8}logs\/a\.ndjson:3$/m);
    expect(out).toMatch(/^ {8}\/var\/b\.ndjson:4$/m);
    expect(out).toMatch(/^ {8}c\.ndjson:5$/m);
  });

  it("says which node's clock causality shows behind, so a cross-node finding can be read as a possible clock artifact", () => {
    expect(renderText(makeReport(), { lineText, lineRecords })).toContain('\nClock skew: causality shows the clock of b at least 12 ms behind (it logs a replay, an answer or a resumption before another node logs the send).');
    // near miss: no estimate, no note
    const unskewed = makeReport();
    unskewed.summary.nodes = { b: { records: 8 }, a: { records: 7 } };
    expect(renderText(unskewed, { lineText, lineRecords })).not.toContain('Clock skew');
  });
});
