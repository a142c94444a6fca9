import { analyzeFiles } from '../../../src/api.js';
import { DETECTORS } from '../../../src/detect/registry.js';
import type { Finding, Report } from '../../../src/model/finding.js';
import type { RuleId } from '../../../src/model/rules.js';
import { meetsThreshold } from '../../../src/model/severity.js';

export { analyzeFiles };
export type { Report };

/**
 * Whether the analyzer judges `rule` yet: detector families land one by one,
 * and an assertion on a rule nobody judges would prove nothing.
 */
export function judges(rule: RuleId): boolean {
  return DETECTORS.some((d) => d.rules.includes(rule));
}

export function errorsOrWorse(report: Report): Finding[] {
  return report.findings.filter((f) => meetsThreshold(f.severity, 'error'));
}

export function findingsOf(report: Report, rule: RuleId): Finding[] {
  return report.findings.filter((f) => f.rule === rule);
}

/** A readable one-liner per finding, for assertion messages. */
export function describeFindings(report: Report): string {
  return report.findings.map((f) => `${f.rule} (${f.severity}) ${f.message}`).join('\n') || '(no findings)';
}
