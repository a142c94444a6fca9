import { exitCodeFor } from '../findings/gate.js';
import type { Finding, FindingList, Report } from '../model/finding.js';
import type { FailOn } from '../model/severity.js';
import type { UnusableInput } from '../model/unusable-input.js';
import { printable } from '../model/printable.js';
import {
  countBySeverity,
  displayPath,
  groupNotKnowable,
  noLineText,
  plural,
  quoteEvidence,
  rejectedLinesNote,
  reportOrder,
  ruleGroups,
  seeThemAll,
  SEVERITIES_DESCENDING,
  sessionLabel,
  sessionList,
  skewNote,
  unusableHeadline,
  type EvidenceQuoting,
  manyNodes,
  type LineText,
} from './common.js';
import type { LineRecords } from './evidence-summary.js';
import { LOSSES_INTRO, LOSSES_TITLE, lossFollowing, lossHeadline, moreLosses, shownLosses } from './node-losses.js';
import { isoTime } from '../model/phrasing.js';

export interface MarkdownOptions {
  lineText?: LineText;
  /** The stored records of an evidence line: each is summarized in one short line. */
  lineRecords?: LineRecords;
  /** Quote the raw (redacted) log lines instead of summaries. */
  raw?: boolean;
  /** Show file names relative to this folder when under it. */
  cwd?: string;
  /** The not-knowable list; false leaves one line that counts it. */
  notKnowable?: boolean;
  /** The gate the status line reports (default error, as the CLI's --fail-on). */
  failOn?: FailOn;
  /** Findings shown in full at most; the rest are counted. */
  maxDetails?: number;
  /** Characters the report stays within (default MARKDOWN_BUDGET): findings past it are counted, not shown. */
  budget?: number;
  /** Inputs that were unusable: the report leads with them, and shows no ✅. */
  unusable?: readonly UnusableInput[];
}

/** Sessions named per not-knowable entry; the rest are counted. */
const NOT_KNOWABLE_SESSIONS = 10;

/**
 * A pull request comment holds 65,536 characters and a job summary 1 MiB: a report longer is refused,
 * not cut. 60,000 UTF-16 units leave room for a bot's own header, and are at most 180 KB of UTF-8.
 */
export const MARKDOWN_BUDGET = 60_000;

/** Evidence lines quoted per finding, the rest counted: a 404 storm cites every one of its POSTs. */
export const EVIDENCE_SHOWN = 10;

/** Unusable inputs named at the top, the rest counted: a folder may hold thousands of broken exports. */
const UNUSABLE_SHOWN = 20;

/**
 * For a CI job summary or a PR comment: status, a count table, then each finding folded, as many as
 * fit the budget. The status line, the table and what follows the findings are always there.
 */
export function renderMarkdown(report: Report<FindingList>, opts: MarkdownOptions = {}): string {
  const quoting: EvidenceQuoting = { lineText: opts.lineText ?? noLineText, lineRecords: opts.lineRecords, raw: opts.raw, cwd: opts.cwd, multiNode: manyNodes(report) };
  const failOn = opts.failOn ?? 'error';
  const maxDetails = opts.maxDetails ?? 50;
  const budget = opts.budget ?? MARKDOWN_BUDGET;
  const s = report.summary;
  const counts = countBySeverity(report.findings);
  const bySeverity = SEVERITIES_DESCENDING.filter((sev) => counts[sev] > 0).map((sev) => `${counts[sev]} ${sev}`);
  const unusable = opts.unusable ?? [];
  // Under a failed gate the findings' own line gets no ✅: a reader takes in the marks first.
  const status = exitCodeFor(report, failOn) === 1 ? '❌ ' : unusable.length > 0 ? '' : '✅ ';
  const found = report.findings.length === 0 ? 'no findings' : `${plural(report.findings.length, 'finding')} (${bySeverity.join(', ')})`;
  const out: string[] = [
    ...unusableItems(unusable, opts.cwd),
    `${status}**resumescope**: ${found} in ${plural(s.records, 'record')}, ${plural(s.sessions, 'session')} (gate: fail on ${failOn})`,
  ];
  out.push(...lossItems(report, quoting));

  const groups = ruleGroups(report.findings);
  const total = report.findings.length;
  // The words that end the details when some are left out: the text report shows 10 of each rule unless
  // told more, so the largest rule's count shows any one rule whole.
  const largest = Math.max(0, ...groups.flatMap((g) => g.rules.map((r) => r.count)));
  const hint = seeThemAll('<rule>', largest, { format: 'text', code: (option) => `\`${option}\`` });
  const moreFindings = (n: number) => `…and ${plural(n, 'more finding')}; ${hint}.`;
  if (groups.length > 0) {
    out.push('', '| rule | severity | count |', '|---|---|---:|');
    for (const g of groups) for (const r of g.rules) out.push(`| \`${r.rule}\` | ${g.severity} | ${r.count} |`);
    out.push('');
  }
  // What follows the findings is sized first, so that the details take only what is left of the budget.
  let tail = tailItems(report, opts.notKnowable !== false);
  const room = () => budget - length(out) - length(tail) - (total > 0 ? moreFindings(total).length + 2 : 0);
  if (room() < 0 && opts.notKnowable !== false) tail = tailItems(report, false);
  // The first few in the text report's order, read no further than they go.
  let shown = 0;
  let left = room();
  for (const f of total > 0 ? reportOrder(report.findings) : []) {
    if (shown === maxDetails) break;
    const block = [...details(f, quoting), ''];
    left -= length(block);
    if (left < 0) break;
    out.push(...block);
    shown += 1;
  }
  if (shown < total) out.push(moreFindings(total - shown), '');
  out.push(...tail);
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

/** Characters these lines take joined by line breaks, one more each: never less than they end up. */
function length(lines: readonly string[]): number {
  let n = 0;
  for (const line of lines) n += line.length + 1;
  return n;
}

/** What follows the findings: the not-knowable list (or its count), clock skew, rejected and repeated lines. */
function tailItems(report: Report<FindingList>, listNotKnowable: boolean): string[] {
  const s = report.summary;
  const out: string[] = [];
  // Grouped only to be listed: a proxy log's list may hold hundreds of thousands.
  const notKnowable = listNotKnowable ? groupNotKnowable(report.not_knowable) : [];
  if (report.not_knowable.length > 0 && !listNotKnowable) {
    const rules = new Set(Array.from(report.not_knowable, (i) => i.rule)).size;
    const sessions = new Set(Array.from(report.not_knowable, (i) => i.session)).size;
    out.push('', `**Not knowable**: ${plural(rules, 'rule')} could not be judged in ${plural(sessions, 'session')} (not listed).`);
  } else if (notKnowable.length > 0) {
    out.push('', '**Not knowable** (the logs do not hold the facts these rules need):', '');
    for (const g of notKnowable) {
      const similar = g.variants > 0 ? ` (+${g.variants} similar)` : '';
      // <code>, not backticks: an id holding a backtick would end a code span.
      const sessions = sessionList(g.sessions, NOT_KNOWABLE_SESSIONS, (x) => `<code>${inline(sessionLabel(x))}</code>`);
      out.push(`- \`${g.rule}\`: ${inline(g.reason)}${similar} (${plural(g.sessions.length, 'session')}: ${sessions})`);
    }
  }
  const skew = skewNote(report);
  if (skew !== undefined) out.push('', inline(skew));
  if (s.rejected_lines > 0) {
    out.push('', `⚠️ ${rejectedLinesNote(s.rejected_lines)}.`);
  }
  if (s.repeated_lines) {
    out.push('', `${plural(s.repeated_lines, 'line')} repeated an earlier line byte for byte and ${s.repeated_lines === 1 ? 'was' : 'were'} read once: \`resumescope query repeated\` lists ${s.repeated_lines === 1 ? 'it' : 'them'}.`);
  }
  return out;
}

/** The lead of a run with unusable inputs: the failed gate, then each input and why. */
function unusableItems(inputs: readonly UnusableInput[], cwd: string | undefined): string[] {
  if (inputs.length === 0) return [];
  // <code>, not backticks: a file name may hold a backtick.
  const named = inputs.slice(0, UNUSABLE_SHOWN).map((u) => `- <code>${htmlText(displayPath(u.name, cwd))}</code>: ${inline(u.reason)}`);
  const more = inputs.length > UNUSABLE_SHOWN ? [`- …and ${inputs.length - UNUSABLE_SHOWN} more: \`--format text\` names every one`] : [];
  return [`❌ **resumescope**: ${unusableHeadline(inputs)}:`, '', ...named, ...more, ''];
}

/** What many findings may follow from (render/node-losses.ts), each loss with the lines that bound it. */
function lossItems(report: Report<FindingList>, quoting: EvidenceQuoting): string[] {
  const { shown, more } = shownLosses(report);
  if (shown.length === 0) return [];
  const out = ['', `**${LOSSES_TITLE}** (${LOSSES_INTRO}):`, ''];
  for (const loss of shown) {
    const following = lossFollowing(report.findings, loss);
    out.push(`- ${inline(lossHeadline(loss))}${following === undefined ? '' : `; findings on these sessions since: ${following}`}`);
    const evidence = loss.evidence.map((ref) => quoteEvidence(ref, quoting, { at: isoTime(loss.from_ms) }));
    const fence = codeFence(evidence);
    out.push('', `  ${fence}text`, ...evidence.map((e) => `  ${e}`), `  ${fence}`);
  }
  if (more > 0) out.push('', moreLosses(more));
  return out;
}

function details(f: Finding, quoting: EvidenceQuoting): string[] {
  const evidence = f.evidence.slice(0, EVIDENCE_SHOWN).map((ref) => quoteEvidence(ref, quoting, { session: f.session, at: f.at }));
  const fence = codeFence(evidence);
  const more = f.evidence.length - evidence.length;
  return [
    '<details>',
    `<summary><b>${f.severity}</b> <code>${htmlText(f.rule)}</code> · session <code>${htmlText(sessionLabel(f.session))}</code> · ${htmlText(f.at)}</summary>`,
    '',
    inline(f.message),
    '',
    `${fence}text`,
    ...evidence,
    fence,
    ...(more > 0 ? ['', `…and ${plural(more, 'more evidence line')}; \`--format json|sarif|junit\` cite every one.`] : []),
    '',
    '</details>',
  ];
}

/**
 * Log text in markdown prose: printable, and nothing markdown or HTML would read as markup. A
 * Last-Event-ID is whatever a client sent, and a finding's message quotes it: `![x](https://…)` in it
 * would be an image fetched by everyone who opens the pull request the report is posted to.
 * Backslash escapes for what starts a link, an image, code, emphasis, math (GitHub's `$x$`) or a table
 * cell; entities for HTML; a break inside what GitHub would link by itself (breakLinks).
 */
function inline(s: string): string {
  // An underscore between two letters or digits (resumption_unavailable) cannot start emphasis: left as it reads.
  return breakLinks(htmlText(s.replace(/[\\`*[\]~|$]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, (c) => `\\${c}`)));
}

/**
 * GFM makes `https://…`, `www.…` and `a@b.c` links by themselves, and GitHub makes `@name` a mention
 * (it notifies) and `#1` an issue link: none of these works across a tag, so one goes inside each
 * (`https:<wbr>//`, `www<wbr>.`, `@<wbr>`, `#<wbr>`). <wbr> shows nothing, is copied as nothing, and
 * survives GitHub's sanitizing as an element where a comment would be dropped.
 */
function breakLinks(s: string): string {
  return s.replace(/:\/\/|(?<=w{3})(?=\.)|(?<=[@#])/giu, (m) => (m === '' ? '<wbr>' : ':<wbr>//'));
}

/** Log text inside an HTML block (the `<summary>` line), where markdown is not read: printable, entities only. */
function htmlText(s: string): string {
  return printable(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A code fence no backtick run in these lines can close: a log line may hold any. */
function codeFence(lines: readonly string[]): string {
  return '`'.repeat(Math.max(3, longestBacktickRun(lines.join('\n')) + 1));
}

function longestBacktickRun(s: string): number {
  return Math.max(0, ...(s.match(/`+/g) ?? []).map((run) => run.length));
}
