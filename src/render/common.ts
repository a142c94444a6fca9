import { isAbsolute, relative } from 'node:path';
import type { Finding, FindingList, NotKnowable, NotKnowableList, OrderedFindings, OrderedNotKnowables, Report } from '../model/finding.js';
import type { LineRef } from '../model/record.js';
import type { UnusableInput } from '../model/unusable-input.js';
import { catalogueOrder, RULE_IDS, ruleOf, type RuleId } from '../detect/rules/index.js';
import { SEVERITIES, type Severity } from '../model/severity.js';
import { printable } from '../model/printable.js';
import { SUMMARY_MAX, summarizeLine, type LineRecords, type SummaryContext } from './evidence-summary.js';

/** Resolves an evidence reference to the text of that log line (undefined when it cannot be read). */
export type LineText = (ref: LineRef) => string | undefined;

export const noLineText: LineText = () => undefined;

/** Most severe first: the order a person on call reads in. */
export const SEVERITIES_DESCENDING: readonly Severity[] = [...SEVERITIES].reverse();

const ruleRank = (id: string): number => catalogueOrder(id);

/** Timeline order: by `at`, then rule; session and message only to make ties deterministic. */
export function sortFindings(findings: readonly Finding[]): Finding[];
/** A table's findings are read in timeline order already: the table itself, never copied. */
export function sortFindings(findings: FindingList): Iterable<Finding>;
export function sortFindings(findings: readonly Finding[] | OrderedFindings): Iterable<Finding> {
  if (!isInMemory(findings)) return findings;
  return [...findings].sort(
    (a, b) =>
      compareTime(a.at, b.at) ||
      compareText(a.rule, b.rule) ||
      compareText(a.session ?? '', b.session ?? '') ||
      compareText(a.message, b.message),
  );
}

export function sortNotKnowable(items: readonly NotKnowable[]): NotKnowable[];
/** A table's not-knowables are read in this order already: the table itself, never copied. */
export function sortNotKnowable(items: NotKnowableList): Iterable<NotKnowable>;
export function sortNotKnowable(items: readonly NotKnowable[] | OrderedNotKnowables): Iterable<NotKnowable> {
  if (!Array.isArray(items)) return items as OrderedNotKnowables;
  return [...items].sort(
    (a, b) => ruleRank(a.rule) - ruleRank(b.rule) || compareText(a.session ?? '', b.session ?? '') || compareText(a.reason, b.reason),
  );
}

/** Findings grouped by severity (most severe first), then by rule in catalogue order; empty groups left out. */
function groupBySeverityAndRule(findings: readonly Finding[]): { severity: Severity; rules: { rule: RuleId; findings: Finding[] }[] }[] {
  const sorted = sortFindings(findings);
  return SEVERITIES_DESCENDING.map((severity) => ({
    severity,
    rules: RULE_IDS.map((rule) => ({ rule, findings: sorted.filter((f) => f.severity === severity && f.rule === rule) })).filter(
      (g) => g.findings.length > 0,
    ),
  })).filter((g) => g.rules.length > 0);
}

/**
 * The order the text report lists findings in (severity, rule, time), one finding at a time:
 * `#N` there and `explain -n N` name the same finding.
 */
export function* reportOrder(findings: FindingList): Generator<Finding> {
  for (const g of ruleGroups(findings)) for (const r of g.rules) yield* r.findings;
}

export function countBySeverity(findings: FindingList): Record<Severity, number> {
  const counts: Record<Severity, number> = { info: 0, warning: 0, error: 0, critical: 0 };
  if (Array.isArray(findings)) for (const f of findings) counts[f.severity] += 1;
  else for (const [rule, n] of findings.countByRule()) counts[ruleOf(rule).severity] += n;
  return counts;
}

/** One rule's findings in a report a person reads: how many, and the findings themselves in timeline order. */
export interface RuleGroup {
  rule: RuleId;
  count: number;
  findings: Iterable<Finding>;
}

/**
 * groupBySeverityAndRule for any list: a table's findings are counted per rule and read rule by rule,
 * one at a time, so that a report of hundreds of thousands shows its first few of each without holding them.
 */
export function ruleGroups(findings: FindingList): { severity: Severity; rules: RuleGroup[] }[] {
  if (Array.isArray(findings)) {
    return groupBySeverityAndRule(findings).map((g) => ({ severity: g.severity, rules: g.rules.map((r) => ({ rule: r.rule, count: r.findings.length, findings: r.findings })) }));
  }
  const counts = findings.countByRule();
  return SEVERITIES_DESCENDING.map((severity) => ({
    severity,
    rules: RULE_IDS.filter((rule) => counts.has(rule) && ruleOf(rule).severity === severity).map((rule) => ({ rule, count: counts.get(rule)!, findings: findings.ofRule(rule) })),
  })).filter((g) => g.rules.length > 0);
}

function isInMemory(findings: readonly Finding[] | OrderedFindings): findings is readonly Finding[] {
  return Array.isArray(findings);
}

/** Not-knowable entries of one rule that share a reason kind, with the sessions they apply to, each once. */
export interface NotKnowableGroup {
  rule: string;
  /** The first reason of the group, its own session written "the session". */
  reason: string;
  /** How many other wordings the group holds (other times, event ids): `--format json` lists each. */
  variants: number;
  sessions: (string | null)[];
}

/**
 * One entry per rule and reason kind. A reason names its session and often a time or an event
 * id; grouped as written, every session would get its own line and name its session twice.
 * The kind is the reason with its session written "the session", up to its first ": " (the
 * cause, e.g. "proxy log only"), times left out.
 */
/** One rule's not-knowables in report order (a table's read by its rule index). */
export function notKnowableOfRule(items: NotKnowableList, rule: string): Iterable<NotKnowable> {
  return Array.isArray(items) ? sortNotKnowable(items.filter((n) => n.rule === rule)) : (items as OrderedNotKnowables).ofRule(rule);
}

export function groupNotKnowable(items: NotKnowableList): NotKnowableGroup[] {
  const groups = new Map<string, NotKnowableGroup & { wordings: Set<string>; seen: Set<string | null> }>();
  for (const item of sortNotKnowable(items)) {
    const reason = item.session === null ? item.reason : maskSession(item.reason, item.session);
    const id = JSON.stringify([item.rule, reasonKind(reason)]);
    const group = groups.get(id) ?? { rule: item.rule, reason, variants: 0, sessions: [], wordings: new Set<string>(), seen: new Set<string | null>() };
    group.wordings.add(reason);
    if (!group.seen.has(item.session)) group.sessions.push(item.session);
    group.seen.add(item.session);
    groups.set(id, group);
  }
  return [...groups.values()]
    .map(({ wordings, seen: _seen, ...g }) => ({ ...g, variants: wordings.size - 1 }))
    .sort((a, b) => ruleRank(a.rule) - ruleRank(b.rule) || compareText(a.reason, b.reason));
}

function maskSession(reason: string, session: string): string {
  const escaped = session.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return reason.replace(new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, 'g'), 'the session');
}

function reasonKind(reason: string): string {
  const cause = reason.indexOf(': ');
  return (cause > 0 ? reason.slice(0, cause) : reason).replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '…');
}

/**
 * Short names for session ids, as git shortens hashes: the shortest prefix of at least
 * 8 characters that no other of `sessions` shares. Short ids are kept whole.
 */
export function shortSessionIds(sessions: readonly (string | null)[]): Map<string | null, string> {
  // In sorted order, the id sharing the longest prefix with an id is one of its neighbours: one sort,
  // not a comparison of every pair (a proxy log's not-knowable list may name tens of thousands).
  const ids = [...new Set(sessions.filter((s): s is string => s !== null))].sort();
  const out = new Map<string | null, string>([[null, sessionLabel(null)]]);
  ids.forEach((id, i) => {
    const shared = Math.max(i > 0 ? commonPrefix(id, ids[i - 1]!) : 0, i + 1 < ids.length ? commonPrefix(id, ids[i + 1]!) : 0);
    const n = Math.min(id.length, Math.max(8, shared + 1));
    out.set(id, printable(n >= id.length - 1 ? id : `${id.slice(0, n)}…`));
  });
  return out;
}

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a.charCodeAt(n) === b.charCodeAt(n)) n++;
  return n;
}

/** A not-knowable reason as its cause ("proxy log only") and the rest; no cause when it has none. */
export function splitCause(reason: string): { cause?: string; rest: string } {
  const at = reason.indexOf(': ');
  return at > 0 && at <= 60 ? { cause: reason.slice(0, at), rest: reason.slice(at + 2) } : { rest: reason };
}

/** At most `max` sessions by name, the rest counted: a proxy log may hold thousands. */
export function sessionList(sessions: readonly (string | null)[], max: number, name: (s: string | null) => string = sessionLabel): string {
  const shown = sessions.slice(0, max).map(name).join(', ');
  return sessions.length > max ? `${shown} and ${sessions.length - max} more` : shown;
}

/** A session id as shown to a person: it comes from a log, so it is printable() (store and JSON keep it exact). */
export function sessionLabel(session: string | null): string {
  return session === null ? '(no session)' : printable(session);
}

/**
 * The log carries records but no protocol version, so the protocol-revision rules had nothing to
 * judge: what the text and HTML reports say beside the versions. Stateless (2026-07-28) requests log
 * a version but have no session to count it under (nor one whose stale id they present).
 */
export function noProtocolVersionLogged(report: Report<FindingList>): boolean {
  const s = report.summary;
  if (s.protocol_versions === undefined || s.records === 0) return false;
  return !Object.keys(s.protocol_versions).some((k) => k !== 'unknown') && s.versions_logged !== true;
}

/**
 * The nodes whose clocks causality shows behind (summary.nodes[].skew_ms: a replay, an answer or a resumption logged
 * before the send it follows, on another node), worst first; undefined where none. Rules order records across
 * nodes by their logged times and apply no estimate, so the reader is told where a cross-node finding may
 * be a clock artifact (the JSON and HTML reports carry the numbers; text and markdown said nothing).
 */
export function skewNote(report: Report<FindingList>): string | undefined {
  const behind = Object.entries(report.summary.nodes ?? {})
    .filter((e): e is [string, { records: number; skew_ms: number }] => typeof e[1].skew_ms === 'number' && e[1].skew_ms < 0)
    .sort((a, b) => a[1].skew_ms - b[1].skew_ms || compareText(a[0], b[0]));
  if (behind.length === 0) return undefined;
  const nodes = behind.map(([node, n]) => `${node} at least ${-n.skew_ms} ms`).join(', ');
  return (
    `Clock skew: causality shows the clock of ${nodes} behind (it logs a replay, an answer or a resumption before another node logs the send). ` +
    'Rules order records across nodes by their logged times, so a finding that rests on such an order within that margin may be a clock artifact.'
  );
}

/**
 * Where a report shows some findings of a rule and counts the rest: what shows them all. One wording
 * for the reports that cap (text, markdown, html): a run narrowed to the rule with `--max-findings`
 * raised to its count (`format` named where the run must name it), one session, or a format that
 * carries every finding. `code` marks each option up as code.
 */
export function seeThemAll(rule: string, count: number, opts: { format?: 'text' | 'html'; code?: (option: string) => string } = {}): string {
  const code = opts.code ?? ((option: string) => option);
  const format = opts.format === undefined ? '' : ` --format ${opts.format}`;
  return `see them all: ${code(`--rule ${rule} --max-findings ${count}${format}`)}, ${code('--session <id>')}, or ${code('--format json|sarif|junit')}`;
}

/**
 * What every report but JSON says first of a run with unusable inputs: the exit status is 2 whatever
 * was found, and what the report shows comes from the other inputs.
 */
export function unusableHeadline(inputs: readonly UnusableInput[]): string {
  const were = inputs.length === 1 ? '1 input was' : `${inputs.length} inputs were`;
  return `${were} unusable: ${GATE_FAILED}; this report covers the other inputs only`;
}

/**
 * The unusable inputs as a plain-text report leads with them (analyze's text says the same, in colour):
 * whatif, explain and timeline too, so that a report saved from stdout never reads as clean.
 */
export function unusableTextLines(inputs: readonly UnusableInput[], cwd?: string): string[] {
  if (inputs.length === 0) return [];
  return [`UNUSABLE INPUTS: ${unusableHeadline(inputs)}`, ...inputs.map((u) => `  ${displayPath(u.name, cwd)}: ${printable(u.reason)}`)];
}

/** Rejected lines counted, and where to read them: text, SARIF and JUnit say it alike. */
export function rejectedLinesNote(n: number): string {
  return `${plural(n, 'rejected line')} could not be read as records; see which and why with \`resumescope query rejected\` on the same logs (or --db FILE)`;
}

/** The gate an unusable input fails, said in every report that names such an input. */
export const GATE_FAILED = 'the gate failed (exit 2), whatever the findings';

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * An evidence line as `file:line  text`. Reports cut long lines (a person scans
 * them); explain quotes them whole, since the witness must show the fault.
 */
export function quoteLine(ref: LineRef, lineText: LineText, max = 320, cwd?: string): string {
  const text = lineText(ref);
  const where = `${displayPath(ref.file, cwd)}:${ref.line}`;
  return text === undefined ? where : `${where}  ${printable(truncate(text.replace(/\r?\n$/, ''), max))}`;
}

/** How a report a person reads quotes evidence (text, markdown). */
export interface EvidenceQuoting {
  lineText: LineText;
  /** The stored records of a line, for its summary. */
  lineRecords?: LineRecords;
  /** The raw (redacted) log lines instead of summaries. */
  raw?: boolean;
  /** Paths under this folder are shown relative to it. */
  cwd?: string;
  /** The log has more than one node: a summary cut short keeps its node= (SummaryContext.keepNode). */
  multiNode?: boolean;
}

/** Whether the report's log names more than one node (servers or proxies). */
export function manyNodes(report: Report<FindingList>): boolean {
  return Object.keys(report.summary.nodes ?? {}).length > 1;
}

/** `file:line  summary`, or `file:line  raw line` with `raw` (or when the line's records are unknown). */
export function quoteEvidence(ref: LineRef, q: EvidenceQuoting, ctx: SummaryContext): string {
  const where = `${displayPath(ref.file, q.cwd)}:${ref.line}`;
  const records = q.raw ? undefined : q.lineRecords?.(ref);
  if (records !== undefined) return `${where}  ${summarizeLine(records, q.multiNode ? { ...ctx, keepNode: true } : ctx)}`;
  const text = q.lineText(ref);
  if (text === undefined) return where;
  return `${where}  ${printable(truncate(text.replace(/\r?\n$/, ''), q.raw ? 320 : SUMMARY_MAX))}`;
}

/** A log file's name relative to `cwd` when it lies under it; as stored otherwise. */
export function displayPath(file: string, cwd: string | undefined): string {
  if (cwd === undefined || !isAbsolute(file)) return printable(file);
  const rel = relative(cwd, file);
  return printable(rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file);
}

export function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

function compareTime(a: string, b: string): number {
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  if (Number.isNaN(ta) || Number.isNaN(tb) || ta === tb) return compareText(a, b);
  return ta - tb;
}

/**
 * By code point, as SQLite's BINARY collation orders UTF-8 (detect/finding-table.ts reads in that
 * order): UTF-16 code units order the same except a surrogate (an astral character) against
 * U+E000..U+FFFF, which this lifts back into code point order.
 */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}
