import { appendAll } from '../model/arrays.js';
import type { FindingList, NotKnowableList, Report } from '../model/finding.js';
import type { UnusableInput } from '../model/unusable-input.js';
import { ruleOf } from '../detect/rules/index.js';
import { tallyBySession } from '../model/session-tally.js';
import { printable } from '../model/printable.js';
import { isoTime } from '../model/phrasing.js';
import { painter, type Paint } from './colour.js';
import {
  countBySeverity,
  displayPath,
  groupNotKnowable,
  noLineText,
  noProtocolVersionLogged,
  plural,
  quoteEvidence,
  rejectedLinesNote,
  ruleGroups,
  seeThemAll,
  SEVERITIES_DESCENDING,
  sessionLabel,
  sessionList,
  shortSessionIds,
  sortNotKnowable,
  splitCause,
  skewNote,
  unusableHeadline,
  type EvidenceQuoting,
  manyNodes,
  type LineText,
} from './common.js';
import type { LineRecords } from './evidence-summary.js';
import { LOSSES_INTRO, LOSSES_TITLE, lossFollowing, lossHeadline, moreLosses, shownLosses } from './node-losses.js';

export interface TextOptions {
  lineText?: LineText;
  /** The stored records of an evidence line: each is summarized in one short line. */
  lineRecords?: LineRecords;
  /** Quote the raw (redacted) log lines instead of summaries (`--raw`). */
  raw?: boolean;
  /** Show file names relative to this folder when under it (the CLI passes the current folder). */
  cwd?: string;
  /** ANSI colour; the CLI decides it (render/colour.ts). */
  color?: boolean;
  /** Findings shown in full per rule; the rest are counted per session. */
  maxFindings?: number;
  /** The not-knowable section; false leaves one line that counts it (`--no-not-knowable`). */
  notKnowable?: boolean;
  /** Inputs that were unusable: said under the summary line, as stderr says it. */
  unusable?: readonly UnusableInput[];
}

/** Enough of each rule to read its pattern; tens of thousands stay one screen per rule. */
export const DEFAULT_MAX_FINDINGS_PER_RULE = 10;

/** Sessions named on one not-knowable line; the rest are counted. */
const NOT_KNOWABLE_SESSIONS = 3;
/** Sessions listed, by full id, at the top of the not-knowable section. */
const LISTED_SESSIONS = 10;

/** What a person on call reads first: the counts, then the worst findings with the lines that prove them. */
export function renderText(report: Report<FindingList>, opts: TextOptions = {}): string {
  const quoting: EvidenceQuoting = { lineText: opts.lineText ?? noLineText, lineRecords: opts.lineRecords, raw: opts.raw, cwd: opts.cwd, multiNode: manyNodes(report) };
  const paint = painter(opts.color);
  const out: string[] = [summaryLine(report), ...unusableLines(opts.unusable ?? [], opts.cwd, paint), ...lossLines(report, quoting, paint)];
  let number = 0; // #N, as `explain -n N` numbers them (reportOrder)

  const max = opts.maxFindings ?? DEFAULT_MAX_FINDINGS_PER_RULE;
  for (const group of ruleGroups(report.findings)) {
    out.push('', paint(group.severity, group.severity.toUpperCase()));
    for (const { rule, count, findings } of group.rules) {
      out.push(`  ${paint('strong', rule)} (${count}) ${paint('faint', ruleOf(rule).summary)}`);
      const rest = new Map<string, number>(); // the findings not shown, per session
      let read = 0;
      for (const f of findings) {
        if (read++ >= max) {
          rest.set(f.session ?? '', (rest.get(f.session ?? '') ?? 0) + 1);
          continue;
        }
        out.push(`    #${++number}  ${f.at}  session ${sessionLabel(f.session)}`, `      ${printable(f.message)}`);
        for (const ref of f.evidence) out.push(paint('faint', `        ${quoteEvidence(ref, quoting, { session: f.session, at: f.at })}`));
      }
      if (count > max) {
        appendAll(out, restLines(rule, rest, count));
        number += count - max;
      }
    }
  }

  appendAll(out, notKnowableLines(report.not_knowable, opts.notKnowable ?? true, paint));

  if (noProtocolVersionLogged(report)) {
    out.push('', 'No protocol version was logged: the protocol-revision rules (session-in-stateless-era, replay-in-stateless-era) did not apply.');
  }
  const skew = skewNote(report);
  if (skew !== undefined) out.push('', printable(skew));

  if (report.summary.rejected_lines > 0) out.push('', `${rejectedLinesNote(report.summary.rejected_lines)}.`);
  return `${out.join('\n')}\n`;
}

/** First after the counts: a report saved from stdout (`> report.txt`) must not read as a pass when the run exited 2. */
function unusableLines(inputs: readonly UnusableInput[], cwd: string | undefined, paint: Paint): string[] {
  if (inputs.length === 0) return [];
  const named = inputs.map((u) => `  ${displayPath(u.name, cwd)}: ${printable(u.reason)}`);
  return ['', `${paint('critical', 'UNUSABLE INPUTS')}: ${unusableHeadline(inputs)}`, ...named];
}

/** Before the findings: what many of them may follow from (render/node-losses.ts). */
function lossLines(report: Report<FindingList>, quoting: EvidenceQuoting, paint: Paint): string[] {
  const { shown, more } = shownLosses(report);
  if (shown.length === 0) return [];
  const out = ['', `${paint('strong', LOSSES_TITLE.toUpperCase())} ${paint('faint', `(${LOSSES_INTRO})`)}`];
  for (const loss of shown) {
    out.push(`  ${lossHeadline(loss)}`);
    // The headline names no session, so the evidence keeps its own; times of that day show as time of day.
    const ctx = { at: isoTime(loss.from_ms) };
    for (const ref of loss.evidence) out.push(paint('faint', `      ${quoteEvidence(ref, quoting, ctx)}`));
    const following = lossFollowing(report.findings, loss);
    if (following !== undefined) out.push(`    findings on these sessions since: ${following}`);
  }
  if (more > 0) out.push(`  ${moreLosses(more, '')}`);
  return out;
}

/**
 * One line per rule and reason kind. The sessions are listed once, at the top; each line
 * names its own by a short id, or says it holds them all. Rules that share a cause
 * ("proxy log only") are listed under it.
 */
function notKnowableLines(items: NotKnowableList, shown: boolean, paint: Paint): string[] {
  if (items.length === 0) return [];
  const all = [...new Set(Array.from(sortNotKnowable(items), (i) => i.session))];
  if (!shown) {
    const rules = new Set(Array.from(items, (i) => i.rule)).size;
    return ['', `${paint('strong', 'NOT KNOWABLE')}: ${plural(rules, 'rule')} could not be judged in ${plural(all.length, 'session')} (hidden by --no-not-knowable)`];
  }
  const short = shortSessionIds(all);
  const whose = (sessions: readonly (string | null)[]) =>
    all.length > 1 && sessions.length === all.length
      ? `all ${all.length} sessions`
      : sessions.length > NOT_KNOWABLE_SESSIONS
        ? `${sessions.length} sessions: ${sessionList(sessions, NOT_KNOWABLE_SESSIONS, (s) => short.get(s)!)}`
        : sessionList(sessions, NOT_KNOWABLE_SESSIONS, (s) => short.get(s)!);
  const out = ['', `${paint('strong', 'NOT KNOWABLE')} in ${plural(all.length, 'session')} (the logs do not hold the facts these rules need; nothing was guessed)`];
  out.push(`  ${all.length === 1 ? 'session' : 'sessions'} ${sessionList(all, LISTED_SESSIONS)}`);
  const groups = groupNotKnowable(items).map((g) => ({ ...g, ...splitCause(g.reason) }));
  const causes = new Map<string, number>();
  for (const g of groups) if (g.cause !== undefined) causes.set(g.cause, (causes.get(g.cause) ?? 0) + 1);
  const line = (indent: string, g: (typeof groups)[number], text: string) =>
    `${indent}${paint('strong', g.rule)}: ${printable(text)}${g.variants > 0 ? ` (+${g.variants} similar)` : ''} ${paint('faint', `(${whose(g.sessions)})`)}`;
  const done = new Set<string>();
  for (const g of groups) {
    if (g.cause === undefined || causes.get(g.cause)! < 2) {
      out.push(line('  ', g, g.reason));
    } else if (!done.has(g.cause)) {
      done.add(g.cause);
      out.push(`  ${printable(g.cause)}:`);
      for (const h of groups.filter((x) => x.cause === g.cause)) out.push(line('    ', h, h.rest));
    }
  }
  return out;
}

/** The findings not shown, counted per session ('' for none), and how to see them all. */
function restLines(rule: string, perSession: ReadonlyMap<string, number>, total: number): string[] {
  const { hidden, named, unnamed } = tallyBySession(perSession, 8, (a, b) => a.localeCompare(b));
  const shown = named.map(([s, n]) => `${sessionLabel(s === '' ? null : s)} (${n})`);
  const more = unnamed > 0 ? `, and ${plural(unnamed, 'other session')}` : '';
  return [
    `    … ${plural(hidden, 'more finding')} in ${plural(perSession.size, 'session')}: ${shown.join(', ')}${more}`,
    `      ${seeThemAll(rule, total)}`,
  ];
}

/** Lines delivered twice are read once (normalize/repeated-lines.ts): the report says how many it set aside. */
function repeatedNote(repeated: number | undefined): string {
  return repeated ? ` (${repeated} repeating an earlier line, read once)` : '';
}

/** Said once per report, not per session (rules.md, "Protocol revisions"). */
function summaryLine(report: Report<FindingList>): string {
  const s = report.summary;
  const counts = countBySeverity(report.findings);
  const bySeverity = SEVERITIES_DESCENDING.filter((sev) => counts[sev] > 0).map((sev) => `${counts[sev]} ${sev}`);
  const findings = report.findings.length === 0 ? 'no findings' : `${plural(report.findings.length, 'finding')} (${bySeverity.join(', ')})`;
  return [
    `resumescope: ${plural(s.records, 'record')}, ${plural(s.sessions, 'session')}`,
    findings,
    `${plural(s.rejected_lines, 'rejected line')}, ${plural(s.ignored_lines, 'ignored line')}${repeatedNote(s.repeated_lines)}`,
  ].join(' · ');
}
