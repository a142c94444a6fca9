import type { Finding, FindingList, LostSession, NotKnowable, NotKnowableList, Report } from '../model/finding.js';
import { countsInCatalogueOrder } from '../detect/rules/index.js';

/** Findings per rule, in catalogue order, only rules that have some. */
export function countByRule(findings: FindingList): Record<string, number> {
  return countsInCatalogueOrder(Array.isArray(findings) ? countEach(findings) : findings.countByRule());
}

function countEach(findings: readonly Finding[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
  return counts;
}

/** Findings per rule, in catalogue order, on these sessions, each after its own time (what followed a node's loss of them). */
export function countFollowing(findings: FindingList, sessions: readonly LostSession[]): Record<string, number> {
  if (!Array.isArray(findings)) return countsInCatalogueOrder(findings.countByRuleOn(sessions));
  const after = new Map(sessions.map((s) => [s.session, s.after_ms]));
  const counts = new Map<string, number>();
  for (const f of findings) {
    const from = f.session === null ? undefined : after.get(f.session);
    if (from !== undefined && Date.parse(f.at) > from) counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
  }
  return countsInCatalogueOrder(counts);
}

/** The findings `keep` keeps, held as they were (in memory, or in their table). */
export function keepFindings<F extends FindingList>(findings: F, keep: (f: Finding) => boolean): F {
  return (Array.isArray(findings) ? findings.filter(keep) : findings.filter(keep)) as F;
}

/** The not-knowables `keep` keeps, held as they were (in memory, or in their table). */
export function keepNotKnowable<N extends NotKnowableList>(items: N, keep: (n: NotKnowable) => boolean): N {
  return (Array.isArray(items) ? items.filter(keep) : items.filter(keep)) as N;
}

/**
 * The same report with another set of findings: `summary.by_rule` always
 * describes the findings a report carries, so every narrowing goes through here.
 * Input counts (records, rejected lines, nodes) describe the logs, not the
 * selection, and stay as they are.
 */
export function withFindings<F extends FindingList>(report: Report<F>, findings: F, notKnowable: Report<F>['not_knowable'] = report.not_knowable): Report<F> {
  return {
    ...report,
    findings,
    not_knowable: notKnowable,
    summary: { ...report.summary, by_rule: countByRule(findings) },
  };
}

/** The report with its findings and not-knowables in memory (the library's report, the front ends, the formats that hold them all). */
export function inMemory(report: Report<FindingList>): Report {
  const findings = report.findings;
  return Array.isArray(findings) ? (report as Report) : { ...report, findings: [...findings], not_knowable: [...report.not_knowable] };
}
