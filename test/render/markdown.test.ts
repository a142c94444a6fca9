import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/markdown.js';
import { FINDINGS, lineRecords, lineText, makeReport } from './fixture.js';

describe('renderMarkdown', () => {
  const md = renderMarkdown(makeReport(), { lineText });

  it('starts with a status line that follows the gate', () => {
    expect(md.split('\n')[0]).toMatch(/^❌ \*\*resumescope\*\*: 6 findings \(1 critical, 3 error, 1 warning, 1 info\)/);
    const warningsOnly = makeReport(FINDINGS.filter((f) => f.severity === 'warning' || f.severity === 'info'));
    expect(renderMarkdown(warningsOnly).split('\n')[0]).toMatch(/^✅ .*2 findings.*fail on error/);
    expect(renderMarkdown(warningsOnly, { failOn: 'warning' }).split('\n')[0]).toMatch(/^❌/);
    expect(renderMarkdown(makeReport([])).split('\n')[0]).toMatch(/^✅ .*no findings/);
  });

  it('has a rule | severity | count table, most severe first', () => {
    const lines = md.split('\n');
    const header = lines.indexOf('| rule | severity | count |');
    expect(header).toBeGreaterThan(0);
    expect(lines[header + 1]).toBe('|---|---|---:|');
    expect(lines.slice(header + 2, header + 8)).toEqual([
      '| `cross-principal-replay` | critical | 1 |',
      '| `silent-truncation` | error | 1 |',
      '| `event-id-without-session` | error | 1 |',
      '| `dual-writer` | error | 1 |',
      '| `404-storm` | warning | 1 |',
      '| `engine-divergence` | info | 1 |',
    ]);
  });

  it('folds each finding into <details> with session, time, message and evidence in a code block', () => {
    expect(md.match(/<details>/g)).toHaveLength(FINDINGS.length);
    expect(md.match(/<\/details>/g)).toHaveLength(FINDINGS.length);
    const dual = /<details>\n<summary>.*dual-writer.*<\/summary>([\s\S]*?)<\/details>/.exec(md);
    expect(dual?.[0]).toContain('session <code>S2</code> · 2026-11-09T10:00:09.000Z');
    expect(dual?.[1]).toContain('attach opened g8 while standalone stream g7 was neither closed nor fenced');
    expect(dual?.[1]).toMatch(/```text\nserver-a\.ndjson:7 {2}\{"ts".*\nserver-b\.ndjson:4 {2}\{.*\n```/);
  });

  it('keeps log-derived text from breaking out of its markup', () => {
    const sneaky = { ...FINDINGS[4]!, message: 'stream <b>g7</b> | still open' };
    const out = renderMarkdown(makeReport([sneaky]), { lineText: () => 'a line with ``` inside' });
    expect(out).toContain('stream &lt;b&gt;g7&lt;/b&gt; \\| still open');
    expect(out).toMatch(/````text\n.*``` inside\n.*\n````/);
  });

  it('renders a Last-Event-ID a client chose as text: no image, link, code span or emphasis from it', () => {
    const beacon = { ...FINDINGS[4]!, session: 'S`x|y', message: 'resumed S2 from event ![x](https://evil.example/p.png) and [here](https://evil.example) *now* `now` _now_ resumption_unavailable' };
    const out = renderMarkdown(makeReport([beacon]));
    expect(out).toContain('resumed S2 from event !\\[x\\](https:<wbr>//evil.example/p.png) and \\[here\\](https:<wbr>//evil.example) \\*now\\* \\`now\\` \\_now\\_ resumption_unavailable');
    // The <summary> line is HTML, where markdown is not read: the id as it is, entity-safe.
    expect(out).toContain('session <code>S`x|y</code>');
  });

  it('summarizes not knowable per rule and reason, and counts findings beyond the cap', () => {
    expect(md).toContain('- `orphaned-request`: proxy log: pending server requests are not visible (2 sessions: <code>S4</code>, <code>S5</code>)');
    const capped = renderMarkdown(makeReport(), { maxDetails: 2 });
    expect(capped.match(/<details>/g)).toHaveLength(2);
    expect(capped).toContain('…and 4 more findings');
  });

  it('says what shows the findings past the cap, in the text report\'s words: not the text report as it stands (10 a rule)', () => {
    const capped = renderMarkdown(makeReport(), { maxDetails: 2 });
    expect(capped).toContain(
      '…and 4 more findings; see them all: `--rule <rule> --max-findings 1 --format text`, `--session <id>`, or `--format json|sarif|junit`.',
    );
    expect(capped).not.toContain('with `--format text` for all of them');
    // --max-findings is the largest rule's count: the text report shows every finding of any one rule with it.
    const many = makeReport([...FINDINGS, ...[1, 2, 3].map((i) => ({ ...FINDINGS[4]!, session: `S${10 + i}` }))]);
    expect(renderMarkdown(many, { maxDetails: 2 })).toContain('`--rule <rule> --max-findings 4 --format text`');
    expect(md).not.toContain('see them all');
  });

  it('sums up evidence with the same one-line summaries as text, or quotes it raw', () => {
    const dual = (out: string) => /<details>\n<summary>.*dual-writer.*<\/summary>([\s\S]*?)<\/details>/.exec(out)?.[1];
    expect(dual(renderMarkdown(makeReport(), { lineText, lineRecords }))).toContain(
      '```text\nserver-a.ndjson:7  10:00:05.100 stream.opened g7 via get node=a\nserver-b.ndjson:4  10:00:09.000 upgrade attach 200 from none →g8',
    );
    expect(dual(renderMarkdown(makeReport(), { lineText, lineRecords, raw: true }))).toMatch(/```text\nserver-a\.ndjson:7 {2}\{"ts"/);
  });

  it('shows files relative to the current folder, and counts not knowable in one line when asked', () => {
    const report = makeReport([{ ...FINDINGS[4]!, evidence: [{ file: '/srv/logs/a.ndjson', line: 3 }, { file: '/var/b.ndjson', line: 4 }] }]);
    const out = renderMarkdown(report, { cwd: '/srv' });
    expect(out).toContain('\nlogs/a.ndjson:3\n/var/b.ndjson:4\n');
    const hidden = renderMarkdown(makeReport(), { notKnowable: false });
    expect(hidden).not.toContain('`orphaned-request`:');
    expect(hidden).toContain('**Not knowable**: 2 rules could not be judged in 2 sessions');
  });

  it("says which node's clock causality shows behind, its name escaped as log text", () => {
    expect(md).toContain('Clock skew: causality shows the clock of b at least 12 ms behind');
    const hostile = makeReport();
    hostile.summary.nodes = { '<img src=x onerror=alert(1)>': { records: 8, skew_ms: -40 } };
    expect(renderMarkdown(hostile)).not.toContain('<img');
  });
});
