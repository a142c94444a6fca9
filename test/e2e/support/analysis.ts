import { analyzeFiles } from '../../../src/api.js';
import type { Finding, Report } from '../../../src/model/finding.js';
import { meetsThreshold } from '../../../src/model/severity.js';

export { analyzeFiles };
export { findingsOf } from '../../helpers/logs.js';
export type { Report };

export function errorsOrWorse(report: Report): Finding[] {
  return report.findings.filter((f) => meetsThreshold(f.severity, 'error'));
}

/** A readable one-liner per finding, for assertion messages. */
export function describeFindings(report: Report): string {
  return report.findings.map((f) => `${f.rule} (${f.severity}) ${f.message}`).join('\n') || '(no findings)';
}
