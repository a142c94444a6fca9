import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RULE_IDS, ruleOf } from '../../src/detect/rules/index.js';
import { reportOrder } from '../../src/render/common.js';
import { render } from '../../src/render/index.js';
import { scale } from '../../src/render/html/charts.js';
import { renderHtml } from '../../src/render/html/index.js';
import { ruleAnchor } from '../../src/render/html/anchors.js';
import { MAX_ROWS, pickRows } from '../../src/render/html/timelines.js';
import { swimlaneSvg } from '../../src/render/html/swimlane.js';
import type { LaneInfo, TimelineRecord } from '../../src/store/session-timeline.js';
import { cli } from '../cli/run-cli.js';
import { lineText, makeReport } from './fixture.js';
import { BREAKOUT_PAYLOAD, hostileLog, htmlOfLogs, IMG_PAYLOAD, manyFindings, REJECTED_PAYLOAD, SCRIPT_PAYLOAD } from './html-fixture.js';

/** The text of every <script> element, with its opening tag. */
function scripts(html: string): { tag: string; body: string }[] {
  return [...html.matchAll(/(<script\b[^>]*>)([\s\S]*?)<\/script>/g)].map((m) => ({ tag: m[1]!, body: m[2]! }));
}

const count = (html: string, re: RegExp) => (html.match(re) ?? []).length;

describe('the HTML report', () => {
  describe('of a hostile log, through the store', async () => {
    const { html, report } = await htmlOfLogs({ 'hostile.ndjson': hostileLog() }, { pageSize: 1 });

    it('quotes the hostile fields (the test can fail: they are in the report)', () => {
      expect(report.findings.length).toBeGreaterThan(3);
      expect(html).toContain('&lt;script&gt;window.__pwned=1&lt;/script&gt;');
      expect(html).toContain('U2&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;');
      expect(html).toContain('&lt;/script&gt;&lt;script&gt;window.__pwned=3&lt;/script&gt;');
      expect(html).toContain(text(REJECTED_PAYLOAD));
    });

    it('never lets a quoted field become markup', () => {
      for (const payload of [SCRIPT_PAYLOAD, IMG_PAYLOAD, BREAKOUT_PAYLOAD, REJECTED_PAYLOAD]) expect(html).not.toContain(payload);
      expect(html).not.toMatch(/<img/i);
      expect(html).not.toMatch(/<[a-z]+[^>]*\son[a-z]+=/i);
      // The only scripts: the inline pager and JSON data blocks, which hold no '<' at all.
      const all = scripts(html);
      expect(all.filter((s) => s.tag === '<script>')).toHaveLength(1);
      for (const s of all.filter((s) => s.tag !== '<script>')) {
        expect(s.tag).toMatch(/^<script type="application\/json" id="[a-z0-9-]+">$/);
        expect(s.body).not.toContain('<');
        expect(() => JSON.parse(s.body)).not.toThrow();
      }
      expect(count(html, /<script\b/g)).toBe(all.length);
    });

    it('keeps the payloads intact inside the data blocks, for the pager to show as text', () => {
      const data = scripts(html).filter((s) => s.tag.includes('application/json')).map((s) => s.body).join('\n');
      const decoded = JSON.stringify(scripts(html).filter((s) => s.tag.includes('application/json')).map((s) => JSON.parse(s.body)));
      expect(data).toContain('\\u003cscript\\u003ewindow.__pwned=1');
      expect(decoded).toContain(JSON.stringify(SCRIPT_PAYLOAD).slice(1, -1));
    });

    it('draws the session named by the findings as swimlanes, with its lanes and evidence rows', () => {
      const svg = html.match(/<svg class="swim"[\s\S]*?<\/svg>/)?.[0] ?? '';
      expect(svg).not.toBe('');
      expect(svg).toContain(`aria-label="timeline of session ${text(SCRIPT_PAYLOAD)}"`);
      for (const lane of ["S", "A", "B", "C"]) expect(svg).toMatch(new RegExp(`class="lane-head"[^>]*>${lane}</text>`));
      expect(count(svg, /class="band sev-/g)).toBeGreaterThan(5);
      expect(svg).toContain('UPGRADE (session');
      expect(svg).toContain('[replayed 8, reemitted 0]');
      expect(svg).toMatch(/class="req-timed_out"/);
      expect(svg).toMatch(/class="req-answered"/);
      expect(svg).toMatch(/class="life zombie"/); // U1 superseded while still registered
      expect(svg).toContain('hostile.ndjson:17');
      expect(html).toContain('href="#timeline-0">timeline</a>');
    });

    it('shows the rejected line and the charts from the store', () => {
      expect(html).toMatch(/<td class="where">hostile\.ndjson:21<\/td>/);
      expect(html).toContain('Reconnect decisions over time');
      expect(count(html.match(/<section id="charts">[\s\S]*?<\/section>/)![0], /<rect [^>]*class="dec-resume"/g)).toBeGreaterThan(0);
    });
  });

  it('has every section, each rule explained, and the summary counts', () => {
    const report = makeReport();
    const html = renderHtml(report, { lineText });
    for (const id of ['summary', 'findings', 'timelines', 'charts', 'not-knowable', 'rejected']) expect(html).toContain(`<section id="${id}">`);
    for (const rule of new Set(report.findings.map((f) => f.rule))) {
      expect(html).toContain(`<code class="rule-id">${rule}</code>`);
      expect(html).toContain(text(ruleOf(rule).explanation.whyItBreaks));
      expect(html).toContain(text(ruleOf(rule).summary));
    }
    expect(html).toContain('<span class="n">16</span> <span class="l">records</span>');
    expect(html).toContain('<code>b</code></td><td class="num">8</td><td class="num">-12 ms</td>');
    expect(html).toContain('proxy log: pending server requests are not visible');
    expect(html).toContain('server-b.ndjson:2</span><code>{&quot;ts&quot;:&quot;2026-11-09T10:00:04.000Z&quot;,&quot;kind&quot;:&quot;upgrade&quot;');
    // Rendered without the store, it says where timelines and charts come from rather than drawing nothing.
    expect(html).toContain('Timelines are drawn from the store');
    expect(html).toContain('Charts are drawn from the store');
  });

  it('numbers findings as the text report does, gravest first', () => {
    const report = makeReport();
    const html = renderHtml(report, { lineText });
    [...reportOrder(report.findings)].forEach((f, i) => {
      const card = html.match(new RegExp(`<article class="finding" id="finding-${i + 1}">[\\s\\S]*?</article>`))?.[0] ?? '';
      expect(card).toContain(text(f.message));
    });
    expect(html.indexOf('sev-critical')).toBeLessThan(html.indexOf('<section class="severity sev-error">'));
  });

  it('allows only its own inline style and script: the policy hashes them, and nothing is fetched', () => {
    const html = renderHtml(makeReport(), { lineText });
    const policy = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)">/)?.[1] ?? '';
    const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    const style = html.match(/<style>([\s\S]*?)<\/style>/)![1]!;
    const script = scripts(html).find((s) => s.tag === '<script>')!.body;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain(`style-src ${hash(style)}`);
    expect(policy).toContain(`script-src ${hash(script)}`);
    expect(policy).toContain('img-src data:');
    expect(policy).not.toContain('unsafe');
    expect(html).not.toMatch(/\b(src|href)="(?!#)/);
    expect(html).not.toMatch(/url\(|@import|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<style>'));
  });

  it('draws one page of findings per rule, and holds the rest as data for the pager', () => {
    const { report, lineText: many } = manyFindings(10_000);
    const html = renderHtml(report, { lineText: many });
    const perRule = Math.ceil(10_000 / RULE_IDS.length);
    expect(count(html, /<article class="finding"/g)).toBe(RULE_IDS.length * 20);
    expect(count(html, /<nav class="pager"/g)).toBe(RULE_IDS.length);
    expect(html).toContain(`findings 1–20 of ${perRule}`);
    const data = scripts(html).filter((s) => /id="data-/.test(s.tag)).map((s) => JSON.parse(s.body) as { first: number; items: unknown[] });
    expect(data.reduce((n, d) => n + d.items.length, 0)).toBe(10_000);
    // Each page's first number continues where the last rule's ended, as `explain -n N` counts.
    const firsts = data.map((d) => d.first).sort((a, b) => a - b);
    expect(firsts[0]).toBe(1);
    const lines = JSON.parse(scripts(html).find((s) => s.tag.includes('rs-lines'))!.body) as { lines: unknown[] };
    expect(lines.lines).toHaveLength(20_000);
    // Swimlanes need the store; without it the sessions are still listed.
    expect(html).toContain('other sessions named by findings');
  });

  it('carries the first --max-findings of each rule and counts the rest per session, numbered on as the text report numbers them', () => {
    const { report, lineText: many } = manyFindings(2_000);
    const last = report.findings.at(-1)!;
    // Ten of one rule's findings past the cap name a hostile session: the most, so the note names it first.
    for (const f of report.findings.filter((x) => x.rule === last.rule).slice(-10)) f.session = SCRIPT_PAYLOAD;
    const html = renderHtml(report, { lineText: many, maxFindings: 30 });
    const counts = RULE_IDS.map((rule) => report.findings.filter((f) => f.rule === rule).length);
    expect(Math.min(...counts)).toBeGreaterThan(30);
    const data = scripts(html).filter((s) => /id="data-/.test(s.tag)).map((s) => JSON.parse(s.body) as { first: number; items: unknown[] });
    expect(data.map((d) => d.items.length)).toEqual(RULE_IDS.map(() => 30));
    // #N skips the findings not carried: each rule's first number is the text report's.
    const ordered = [...reportOrder(report.findings)];
    const expectedFirsts = RULE_IDS.map((rule) => ordered.findIndex((f) => f.rule === rule) + 1).sort((a, b) => a - b);
    expect(data.map((d) => d.first).sort((a, b) => a - b)).toEqual(expectedFirsts);
    const lines = JSON.parse(scripts(html).find((s) => s.tag.includes('rs-lines'))!.body) as { lines: unknown[] };
    expect(lines.lines).toHaveLength(RULE_IDS.length * 30 * 2);
    const rule = last.rule;
    const total = report.findings.filter((f) => f.rule === rule).length;
    const block = html.match(new RegExp(`<details class="rule" id="${ruleAnchor(rule)}"[\\s\\S]*?</details>`))![0];
    expect(block).toContain(`${total - 30} more findings of this rule, past the first 30, are not in this report`);
    expect(block).toContain(`<code>--rule ${rule} --max-findings ${total} --format html</code>`);
    // A session id from the log is text in the note, never markup.
    expect(block).toContain(`<ul class="ids"><li><code>${text(SCRIPT_PAYLOAD)}</code> (10)</li>`);
    expect(html).not.toContain(SCRIPT_PAYLOAD);
    // Under the cap, no note.
    expect(renderHtml(report, { lineText: many, maxFindings: 2_000 })).not.toContain('more findings of this rule');
  });

  it('caps the rows of a long session, keeping its evidence and structure first', () => {
    const rec = (i: number, kind: string): TimelineRecord => ({ id: i, file: 'a.ndjson', line: i, ts_ms: i, kind, origin: 'server', node: null, session: 'S', stream: 'g', lane: 'g' });
    const records = Array.from({ length: 1000 }, (_, i) => rec(i + 1, i % 100 === 50 ? 'upgrade' : 'event.sent'));
    const marks = new Map([['a.ndjson:777', { severity: 'error' as const, numbers: [1] }]]);
    const rows = pickRows(records, marks);
    const drawn = rows.flatMap((r) => (r.type === 'record' ? [r.record] : []));
    expect(drawn).toHaveLength(MAX_ROWS);
    expect(drawn.some((r) => r.line === 777)).toBe(true);
    expect(drawn.filter((r) => r.kind === 'upgrade')).toHaveLength(10);
    expect(drawn.map((r) => r.line)).toEqual([...drawn.map((r) => r.line)].sort((a, b) => a - b));
    const skipped = rows.reduce((n, r) => n + (r.type === 'gap' ? r.skipped : 0), 0);
    expect(skipped + MAX_ROWS).toBe(1000);
  });

  it('picks in one pass of the records what sorting them all by (evidence, structure, events) and position would', () => {
    // The definition: rank every record, sort by rank then position, keep the first `max`, draw them in log order.
    const bySorting = (records: TimelineRecord[], marks: Map<string, unknown>, max: number) => {
      const rank = (r: TimelineRecord) => (marks.has(`${r.file}:${r.line}`) ? 0 : /^(upgrade|stream\.|session\.|request\.|buffer\.)/.test(r.kind) ? 1 : 2);
      const keep = new Set(records.map((r, i) => ({ i, k: rank(r) })).sort((a, b) => a.k - b.k || a.i - b.i).slice(0, max).map((o) => o.i));
      return records.flatMap((r, i) => (keep.has(i) ? [r.line] : []));
    };
    const kinds = ['event.sent', 'upgrade', 'stream.opened', 'request.sent', 'call'];
    fc.assert(
      fc.property(fc.array(fc.nat(kinds.length - 1), { maxLength: 60 }), fc.uniqueArray(fc.nat(59), { maxLength: 10 }), fc.integer({ min: 1, max: 20 }), (kindAt, marked, max) => {
        const records = kindAt.map((k, i): TimelineRecord => ({ id: i, file: 'a.ndjson', line: i, ts_ms: i, kind: kinds[k]!, origin: 'server', node: null, session: 'S', stream: 'g', lane: 'g' }));
        const marks = new Map(marked.map((line) => [`a.ndjson:${line}`, { severity: 'error' as const, numbers: [1] }]));
        // Read as the store hands them over: once, as they come.
        const rows = pickRows((function* () { yield* records; })(), marks, max);
        expect(rows.flatMap((r) => (r.type === 'record' ? [r.record.line] : []))).toEqual(bySorting(records, marks, max));
        expect(rows.reduce((n, r) => n + (r.type === 'gap' ? r.skipped : 1), 0)).toBe(records.length);
      }),
      { numRuns: 300 },
    );
  });

  it('draws a column only for the streams its drawn rows name, however many the session opened', () => {
    // A soak session: 2,000 streams one after another, two records each; the drawing keeps 160 rows.
    const records: TimelineRecord[] = [];
    const lanes: LaneInfo[] = [];
    for (let k = 0; k < 2000; k++) {
      const stream = `g${k}`;
      lanes.push({ stream, lane: stream, via: 'get', opened_ts: 4 * k, closed_ts: 4 * k + 1, close_reason: 'error', fenced_ts: null, superseded_ts: null, superseded_id: null, superseded_file: null, superseded_line: null, superseded_by_stream: null, superseded_while_open: null });
      for (const [j, kind] of (['stream.opened', 'stream.closed'] as const).entries()) {
        records.push({ id: 2 * k + j + 1, file: 'soak.ndjson', line: 2 * k + j + 1, ts_ms: 4 * k + j, kind, origin: 'server', node: null, session: 'S', stream, lane: stream });
      }
    }
    const rows = pickRows(records, new Map());
    const named = new Set(rows.flatMap((r) => (r.type === 'record' ? [r.record.stream] : [])));
    const svg = swimlaneSvg({ session: 'S', incarnations: [], lanes, records }, rows, 'soak', '0');
    expect(count(svg, /<td class="lane-head">/g)).toBe(named.size + 1); // and the session's own
    expect(named.size).toBeLessThan(200);
  });

  // The lane key says a dual writer's old stream was superseded while open, as `timeline` does; a stream
  // superseded after it had ended (an ordinary resumption) says only how it ended.
  it('says in the lane key which stream was superseded while open, by which upgrade, and how it ended after', () => {
    const lane = (stream: string, whileOpen: boolean | null): LaneInfo => ({
      stream, lane: 'g1', via: 'get', opened_ts: 0, closed_ts: 5000, close_reason: 'half_open', fenced_ts: null,
      superseded_ts: whileOpen === null ? null : 2000, superseded_id: whileOpen === null ? null : 7, superseded_file: 'w.ndjson', superseded_line: 13,
      superseded_by_stream: 'g2', superseded_while_open: whileOpen,
    });
    const states = (whileOpen: boolean) => {
      const records: TimelineRecord[] = ['g1', 'g2'].map((stream, k) => ({ id: k + 1, file: 'w.ndjson', line: k + 1, ts_ms: k, kind: 'stream.opened', origin: 'server', node: null, session: 'S', stream, lane: 'g1' }));
      const svg = swimlaneSvg({ session: 'S', incarnations: [], lanes: [lane('g1', whileOpen), lane('g2', null)], records }, pickRows(records, new Map()), 'w', '0');
      return [...svg.matchAll(/<tr><td class="lane-head">[AB]<\/td>.*?<td>([^<]*)<\/td><\/tr>/g)].map((m) => m[1]);
    };
    expect(states(true)[0]).toBe('superseded while open at 1970-01-01T00:00:02.000Z by the upgrade to g2, w.ndjson:13; then closed: half_open');
    expect(states(false)[0]).toBe('closed: half_open');
  });

  it('names each not-knowable session once per reason, and folds a long list', () => {
    const short = renderHtml(makeReport(), { lineText });
    const section = short.match(/<section id="not-knowable">[\s\S]*?<\/section>/)![0];
    expect(count(section, /<tr><td>/g)).toBe(2); // two reasons; S4 and S5 share one
    expect(section).toContain('<code>S4</code>, <code>S5</code>');
    expect(section).not.toContain('<details>');
    const many = makeReport();
    many.not_knowable = RULE_IDS.slice(0, 12).map((rule) => ({ rule, session: 'S9', reason: `no ${rule} facts <b>here</b>` }));
    const folded = renderHtml(many, { lineText }).match(/<section id="not-knowable">[\s\S]*?<\/section>/)![0];
    expect(folded).toContain('<details><summary>12 reasons for 12 rules</summary>');
    expect(folded).toContain('no silent-truncation facts &lt;b&gt;here&lt;/b&gt;');
  });

  it('is what analyze --format html writes, and --explain adds nothing after </html>', async () => {
    const r = await cli('analyze', 'samples/writers.ndjson', '--format', 'html', '--explain', '--fail-on', 'never');
    expect(r.code).toBe(0);
    expect(r.out.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(r.out.endsWith('</html>\n')).toBe(true);
    expect(r.out).toContain('<svg class="swim"');
    expect(r.out).toContain('<figcaption>Reconnect decisions over time</figcaption>');
    expect(r.out).toContain('samples/writers.ndjson:13');
  });

  it('puts whole-number ticks on counts', () => {
    expect(scale(0)).toEqual({ top: 1, ticks: [0, 1] });
    expect(scale(3)).toEqual({ top: 3, ticks: [0, 1, 2, 3] });
    expect(scale(7)).toEqual({ top: 8, ticks: [0, 2, 4, 6, 8] });
    expect(scale(1234).ticks.every(Number.isInteger)).toBe(true);
    expect(scale(1234).top).toBeGreaterThanOrEqual(1234);
  });

  it('is the same bytes on every run, and what render("html") returns', () => {
    const a = render('html', makeReport(), { lineText, toolVersion: '1.0.0' });
    expect(render('html', makeReport(), { lineText, toolVersion: '1.0.0' })).toBe(a);
    expect(a).toBe(renderHtml(makeReport(), { lineText, toolVersion: '1.0.0' }));
  });
});

function text(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
