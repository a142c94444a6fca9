import { ruleOf } from '../detect/rules/index.js';
import type { FindingList, Report } from '../model/finding.js';
import { meetsThreshold, type FailOn } from '../model/severity.js';

/**
 * The CI gate: 1 when any finding is at or above `failOn`, else 0; 2 when the report says an input was
 * unusable (the library's AnalyzedReport), whatever the findings: a broken export never passes. The CLI
 * decides its own exit 2 (an unusable input or command line) before it asks here.
 */
export function exitCodeFor(report: Report<FindingList> & { unusable?: readonly unknown[] }, failOn: FailOn): 0 | 1 | 2 {
  if (report.unusable !== undefined && report.unusable.length > 0) return 2;
  const findings = report.findings;
  // A table's findings carry their rule's severity: its counts per rule answer without reading one.
  const failing = Array.isArray(findings)
    ? findings.some((f) => meetsThreshold(f.severity, failOn))
    : [...findings.countByRule().keys()].some((rule) => meetsThreshold(ruleOf(rule).severity, failOn));
  return failing ? 1 : 0;
}
