import type { Finding, NotKnowable } from '../model/finding.js';
import type { LineRef } from '../model/record.js';
import { catalogueOrder, RULE_IDS, type RuleId } from '../detect/rules/index.js';
import { SEVERITIES, type Severity } from '../model/severity.js';

/** Resolves an evidence reference to the text of that log line (undefined when it cannot be read). */
export type LineText = (ref: LineRef) => string | undefined;

export const noLineText: LineText = () => undefined;

/** Most severe first: the order a person on call reads in. */
export const SEVERITIES_DESCENDING: readonly Severity[] = [...SEVERITIES].reverse();

const ruleRank = (id: string): number => catalogueOrder(id);

/** Timeline order: by `at`, then rule; session and message only to make ties deterministic. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      compareTime(a.at, b.at) ||
      compareText(a.rule, b.rule) ||
      compareText(a.session ?? '', b.session ?? '') ||
      compareText(a.message, b.message),
  );
}

export function sortNotKnowable(items: readonly NotKnowable[]): NotKnowable[] {
  return [...items].sort(
    (a, b) => ruleRank(a.rule) - ruleRank(b.rule) || compareText(a.session ?? '', b.session ?? '') || compareText(a.reason, b.reason),
  );
}

/** Findings grouped by severity (most severe first), then by rule in catalogue order; empty groups left out. */
export function groupBySeverityAndRule(findings: readonly Finding[]): { severity: Severity; rules: { rule: RuleId; findings: Finding[] }[] }[] {
  const sorted = sortFindings(findings);
  return SEVERITIES_DESCENDING.map((severity) => ({
    severity,
    rules: RULE_IDS.map((rule) => ({ rule, findings: sorted.filter((f) => f.severity === severity && f.rule === rule) })).filter(
      (g) => g.findings.length > 0,
    ),
  })).filter((g) => g.rules.length > 0);
}

/** The order the text report lists findings in (severity, rule, time): `#N` there and `explain -n N` name the same finding. */
export function inReportOrder(findings: readonly Finding[]): Finding[] {
  return groupBySeverityAndRule(findings).flatMap((g) => g.rules.flatMap((r) => r.findings));
}

export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { info: 0, warning: 0, error: 0, critical: 0 };
  for (const f of findings) counts[f.severity] += 1;
  return counts;
}

/** One entry per rule and reason with the sessions it applies to: the same reason repeats per session otherwise. */
export function groupNotKnowable(items: readonly NotKnowable[]): { rule: string; reason: string; sessions: (string | null)[] }[] {
  const groups = new Map<string, { rule: string; reason: string; sessions: (string | null)[] }>();
  for (const item of sortNotKnowable(items)) {
    const id = JSON.stringify([item.rule, item.reason]);
    const group = groups.get(id) ?? { rule: item.rule, reason: item.reason, sessions: [] };
    if (!group.sessions.includes(item.session)) group.sessions.push(item.session);
    groups.set(id, group);
  }
  return [...groups.values()].sort((a, b) => ruleRank(a.rule) - ruleRank(b.rule) || compareText(a.reason, b.reason));
}

export function sessionLabel(session: string | null): string {
  return session ?? '(no session)';
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The log line as quoted evidence, cut to `max` characters so one long line cannot flood a report. */
/**
 * An evidence line as `file:line  text`. Reports cut long lines (a person scans
 * them); explain quotes them whole, since the witness must show the fault.
 */
export function quoteLine(ref: LineRef, lineText: LineText, max = 320): string {
  const text = lineText(ref);
  const where = `${ref.file}:${ref.line}`;
  return text === undefined ? where : `${where}  ${truncate(text.replace(/\r?\n$/, ''), max)}`;
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

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
