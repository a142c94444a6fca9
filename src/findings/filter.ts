import type { FindingList, Report } from '../model/finding.js';
import { keepFindings, keepNotKnowable, withFindings } from './recount.js';

export interface ReportFilter {
  /** Keep only these rules (absent: all rules). */
  rules?: readonly string[];
  /** Keep only these session ids (absent: all sessions; a finding without a session never matches a list). */
  sessions?: readonly string[];
}

export function filterReport<F extends FindingList>(report: Report<F>, filter: ReportFilter): Report<F> {
  const rules = filter.rules ? new Set<string>(filter.rules) : undefined;
  const sessions = filter.sessions ? new Set(filter.sessions) : undefined;
  if (!rules && !sessions) return report;
  const keep = (item: { rule: string; session: string | null }): boolean =>
    (!rules || rules.has(item.rule)) && (!sessions || (item.session !== null && sessions.has(item.session)));
  return withFindings(report, keepFindings(report.findings, keep), keepNotKnowable(report.not_knowable, keep));
}
