import type { FindingList } from '../../model/finding.js';
import { isRecordQuote, type LineRef } from '../../model/record.js';
import { ruleOf, type RuleId } from '../../detect/rules/index.js';
import { tallyBySession } from '../../model/session-tally.js';
import { compareText, ruleGroups, seeThemAll, sessionLabel, truncate, type LineText, type RuleGroup } from '../common.js';
import { findingAnchor, ruleAnchor, timelineAnchor } from './anchors.js';
import { attr, jsonForScript, text } from './escape.js';
import { counted } from './words.js';

// Findings grouped by severity, then rule. Each rule draws its first page of
// findings as HTML; the whole list sits beside it as JSON, and the inline
// script (script.ts) draws other pages from it on demand. Tens of thousands
// of findings then cost one page of elements per rule, not one per finding,
// and the file still holds every finding (search it, or print it page by page).

export const DEFAULT_PAGE_SIZE = 20;
/**
 * Findings a rule carries in the page. A bad server's 112k findings made a 73 MB page (each with its
 * evidence lines) and took 808 MB to write; past this, the rest are counted per session, as the text
 * report counts them past its first 10. `--max-findings N` moves it.
 */
export const DEFAULT_HTML_MAX_FINDINGS = 1000;
/** An evidence line longer than this is cut: the report links file:line for the whole. */
const MAX_LINE_CHARS = 1000;

/** The evidence lines of all findings, each stored once: findings of one upgrade share most of them. */
export class LineTable {
  readonly files: string[] = [];
  readonly lines: [number, number, string | null][] = [];
  private readonly fileIndex = new Map<string, number>();
  private readonly lineIndex = new Map<string, number>();
  /** Lines quoted by their cited record (export batches): each record cited is an entry of its own. */
  private readonly batchLines = new Set<string>();

  constructor(private readonly lineText: LineText) {}

  indexOf(ref: LineRef): number {
    const lineKey = `${ref.line}\u0000${ref.file}`;
    let key = this.batchLines.has(lineKey) ? `${lineKey}\u0000${ref.record}` : lineKey;
    let i = this.lineIndex.get(key);
    if (i === undefined) {
      let f = this.fileIndex.get(ref.file);
      if (f === undefined) {
        f = this.files.push(ref.file) - 1;
        this.fileIndex.set(ref.file, f);
      }
      const raw = this.lineText(ref);
      if (raw !== undefined && isRecordQuote(raw) && !this.batchLines.has(lineKey)) {
        this.batchLines.add(lineKey);
        key = `${lineKey}\u0000${ref.record}`;
      }
      i = this.lines.push([f, ref.line, raw === undefined ? null : truncate(raw.replace(/\r?\n$/, ''), MAX_LINE_CHARS)]) - 1;
      this.lineIndex.set(key, i);
    }
    return i;
  }

  dataBlock(): string {
    return `<script type="application/json" id="rs-lines">${jsonForScript({ files: this.files, lines: this.lines })}</script>`;
  }
}

/** A finding as the pager's data holds it: [at, session, message, evidence line indices, timeline index or -1]. */
type FindingItem = [string, string | null, string, number[], number];

export interface FindingsContext {
  lines: LineTable;
  /** The index of a session's drawn timeline. */
  timelineOf: (session: string | null) => number | undefined;
  pageSize: number;
  /** Findings a rule carries (drawn and paged); the rest are counted per session. */
  maxFindings: number;
}

export function findingsSection(findings: FindingList, ctx: FindingsContext): string {
  const groups = ruleGroups(findings);
  if (groups.length === 0) return '<section id="findings"><h2>Findings</h2><p class="none">No findings: every rule that could be judged passed.</p></section>';
  let number = 0; // #N as the text report and `explain -n N` number them (reportOrder)
  const out: string[] = ['<section id="findings"><h2>Findings</h2>'];
  for (const g of groups) {
    const count = g.rules.reduce((n, r) => n + r.count, 0);
    out.push(`<section class="severity sev-${g.severity}"><h3><span class="badge sev-${g.severity}">${g.severity}</span> ${text(counted(count, 'finding'))}</h3>`);
    for (const r of g.rules) {
      out.push(ruleBlock(r, number + 1, ctx));
      number += r.count;
    }
    out.push('</section>');
  }
  out.push('</section>');
  return out.join('\n');
}

function ruleBlock({ rule, count, findings }: RuleGroup, first: number, ctx: FindingsContext): string {
  const key = ruleAnchor(rule);
  const e = ruleOf(rule).explanation;
  const items: FindingItem[] = [];
  const rest = new Map<string | null, number>(); // the findings past the cap, per session
  for (const f of findings) {
    if (items.length < ctx.maxFindings) items.push([f.at, f.session, f.message, f.evidence.map((ref) => ctx.lines.indexOf(ref)), ctx.timelineOf(f.session) ?? -1]);
    else rest.set(f.session, (rest.get(f.session) ?? 0) + 1);
  }
  const page = items.slice(0, ctx.pageSize).map((item, i) => findingCard(item, first + i, ctx.lines));
  const paged = items.length > ctx.pageSize;
  return [
    `<details class="rule" id="${key}" open><summary><code class="rule-id">${text(rule)}</code> <span class="count">${text(counted(count, 'finding'))}</span> <span class="rule-sum">${text(ruleOf(rule).summary)}</span></summary>`,
    `<dl class="explain"><div><dt>What it means</dt><dd>${text(e.meaning)}</dd></div><div><dt>Why it breaks</dt><dd>${text(e.whyItBreaks)}</dd></div><div><dt>What the server should do</dt><dd>${text(e.shouldHave)}</dd></div></dl>`,
    paged ? pager(key, ctx.pageSize, items.length, first) : '',
    `<div class="findings" id="list-${key}">${page.join('')}</div>`,
    paged ? `<script type="application/json" id="data-${key}">${jsonForScript({ first, items })}</script>` : '',
    ...(rest.size > 0 ? [restNote(rule, rest, count, items.length)] : []),
    '</details>',
  ].join('\n');
}

/** Sessions named in the note on a rule's findings past the cap; the others are counted. */
const REST_SESSIONS = 20;

/** The findings past the cap, counted per session, and how to see them all (as the text report says it). */
function restNote(rule: RuleId, perSession: ReadonlyMap<string | null, number>, total: number, carried: number): string {
  const { hidden, named, unnamed } = tallyBySession(perSession, REST_SESSIONS, (a, b) => compareText(a ?? '', b ?? ''));
  const items = named.map(([s, n]) => `<li><code>${text(sessionLabel(s))}</code> (${n.toLocaleString('en-US')})</li>`);
  const more = unnamed > 0 ? `<li>${text(counted(unnamed, 'other session'))}</li>` : '';
  const hint = seeThemAll(rule, total, { format: 'html', code: (option) => `<code>${text(option)}</code>` });
  return `<div class="note rest"><p>${text(`${counted(hidden, 'more finding')} of this rule, past the first ${carried.toLocaleString('en-US')}, ${hidden === 1 ? 'is' : 'are'} not in this report; per session (${perSession.size.toLocaleString('en-US')}):`)}</p><ul class="ids">${items.join('')}${more}</ul><p>S${hint.slice(1)}.</p></div>`;
}

function pager(key: string, size: number, total: number, first: number): string {
  const pages = Math.ceil(total / size);
  return `<nav class="pager" data-pager=${attr(key)} data-size="${size}" data-total="${total}" data-first="${first}" hidden aria-label="pages of findings">
<button type="button" data-go="first">« first</button><button type="button" data-go="prev">‹ previous</button>
<span class="where">findings 1–${size} of ${total.toLocaleString('en-US')}</span>
<button type="button" data-go="next">next ›</button><button type="button" data-go="last">last »</button>
<label>page <input type="number" min="1" max="${pages}" value="1"> of ${pages.toLocaleString('en-US')}</label></nav>
<noscript><p class="note">Showing the first ${size} of ${total.toLocaleString('en-US')}; the report's inline script pages through the rest (or use --format json).</p></noscript>`;
}

/** One quoted evidence line, by its index in the table: `file:line` and the line as stored. */
export function evidenceItem(lines: LineTable, index: number): string {
  const [f, line, raw] = lines.lines[index]!;
  return `<li><span class="where">${text(`${lines.files[f]}:${line}`)}</span>${raw === null ? '' : `<code>${text(raw)}</code>`}</li>`;
}

/** One finding; script.ts builds the same elements in the browser for the other pages (a test holds them equal). */
function findingCard(item: FindingItem, number: number, lines: LineTable): string {
  const [at, session, message, evidence, timeline] = item;
  const link = timeline >= 0 ? ` · <a href="#${timelineAnchor(timeline)}">timeline</a>` : '';
  const quoted = evidence.map((i) => evidenceItem(lines, i));
  const ev = quoted.length ? `<ol class="evidence">${quoted.join('')}</ol>` : '<p class="note">(no evidence lines recorded)</p>';
  return `<article class="finding" id="${findingAnchor(number)}"><div class="meta"><span class="num">#${number}</span> <time>${text(at)}</time> · session <code>${text(sessionLabel(session))}</code>${link}</div><p class="msg">${text(message)}</p>${ev}</article>`;
}
