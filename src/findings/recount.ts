import type { Finding, NotKnowable, Report } from '../model/finding.js';
import { RULE_IDS } from '../detect/rules/index.js';

/** Findings per rule, in catalogue order, only rules that have some. */
export function countByRule(findings: readonly Finding[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
  const byRule: Record<string, number> = {};
  for (const id of RULE_IDS) {
    const n = counts.get(id);
    if (n !== undefined) byRule[id] = n;
  }
  return byRule;
}

/**
 * The same report with another set of findings: `summary.by_rule` always
 * describes the findings a report carries, so every narrowing goes through here.
 * Input counts (records, rejected lines, nodes) describe the logs, not the
 * selection, and stay as they are.
 */
export function withFindings(report: Report, findings: Finding[], notKnowable: NotKnowable[] = report.not_knowable): Report {
  return {
    ...report,
    findings,
    not_knowable: notKnowable,
    summary: { ...report.summary, by_rule: countByRule(findings) },
  };
}
