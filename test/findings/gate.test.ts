import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/findings/gate.js';
import type { Finding } from '../../src/model/finding.js';
import type { FailOn, Severity } from '../../src/model/severity.js';
import { FINDINGS, makeReport } from '../render/fixture.js';

const onlyOf = (severity: Severity): Finding[] => FINDINGS.filter((f) => f.severity === severity);

describe('exitCodeFor', () => {
  // Rows: the most severe finding in the report; columns: --fail-on.
  const table: [Severity | 'none', Record<FailOn, 0 | 1>][] = [
    ['critical', { info: 1, warning: 1, error: 1, critical: 1, never: 0 }],
    ['error', { info: 1, warning: 1, error: 1, critical: 0, never: 0 }],
    ['warning', { info: 1, warning: 1, error: 0, critical: 0, never: 0 }],
    ['info', { info: 1, warning: 0, error: 0, critical: 0, never: 0 }],
    ['none', { info: 0, warning: 0, error: 0, critical: 0, never: 0 }],
  ];

  for (const [worst, expected] of table) {
    for (const [failOn, code] of Object.entries(expected) as [FailOn, 0 | 1][]) {
      it(`worst finding ${worst}, --fail-on ${failOn} → ${code}`, () => {
        const findings = worst === 'none' ? [] : onlyOf(worst);
        expect(findings.length > 0 || worst === 'none').toBe(true);
        expect(exitCodeFor(makeReport(findings), failOn)).toBe(code);
      });
    }
  }

  it('one finding at the threshold among lower ones is enough to fail', () => {
    const findings = [...onlyOf('info'), ...onlyOf('warning'), ...onlyOf('error')];
    expect(exitCodeFor(makeReport(findings), 'error')).toBe(1);
    expect(exitCodeFor(makeReport(findings), 'critical')).toBe(0);
  });
});
