import { describe, expect, it } from 'vitest';
import { exitCodeFor, failsGate, liveExitCode, worstCode } from '../../src/findings/gate.js';
import type { Finding } from '../../src/model/finding.js';
import type { RunEnd } from '../../src/model/run-end.js';
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

describe('the CLI\'s unusable input (analyze)', () => {
  it('exits 2 whatever the findings and whatever --fail-on, never included', () => {
    for (const failOn of ['never', 'critical', 'info'] as FailOn[]) {
      expect(exitCodeFor(makeReport([]), failOn, { unusableInput: true })).toBe(2);
      expect(exitCodeFor(makeReport(onlyOf('critical')), failOn, { unusableInput: true })).toBe(2);
    }
  });

  it('leaves the findings to decide when every input was usable', () => {
    expect(exitCodeFor(makeReport(onlyOf('critical')), 'error', { unusableInput: false })).toBe(1);
    expect(exitCodeFor(makeReport([]), 'error', { unusableInput: false })).toBe(0);
  });
});

describe('failsGate (watch stops at the first)', () => {
  it('fails at or above --fail-on, never with never', () => {
    expect(failsGate('error', 'error')).toBe(true);
    expect(failsGate('critical', 'error')).toBe(true);
    expect(failsGate('warning', 'error')).toBe(false);
    expect(failsGate('critical', 'never')).toBe(false);
  });
});

describe('worstCode', () => {
  it('keeps the worst code a run was given', () => {
    expect(worstCode(1, 0)).toBe(1);
    expect(worstCode(0, 2)).toBe(2);
    expect(worstCode(2, 1)).toBe(2);
    expect(worstCode(0, 0)).toBe(0);
  });
});

describe('liveExitCode (watch\'s end, README "watch")', () => {
  const judged: RunEnd[] = ['idle', 'exit-after', 'eof', 'signal'];
  const cutShort: RunEnd[] = ['fail-on', 'output', 'quit'];

  it('gives a guard 2 over an unusable input when the run went as far as it was meant to', () => {
    for (const ended of judged) expect(liveExitCode(0, { ended, unusableInput: true, failOn: 'error' }), ended).toBe(2);
  });

  it('exits 0 over an unusable input without a guard (--fail-on never), unlike analyze', () => {
    for (const ended of judged) expect(liveExitCode(0, { ended, unusableInput: true, failOn: 'never' }), ended).toBe(0);
  });

  it('keeps the code of a run cut short: a violation keeps its 1, a quit is no gate', () => {
    expect(liveExitCode(1, { ended: 'fail-on', unusableInput: true, failOn: 'error' })).toBe(1);
    for (const ended of cutShort) expect(liveExitCode(0, { ended, unusableInput: true, failOn: 'error' }), ended).toBe(0);
    expect(liveExitCode(0, { ended: undefined, unusableInput: true, failOn: 'error' })).toBe(0);
  });

  it('leaves a usable run its own code', () => {
    expect(liveExitCode(0, { ended: 'idle', unusableInput: false, failOn: 'error' })).toBe(0);
    expect(liveExitCode(1, { ended: 'idle', unusableInput: false, failOn: 'error' })).toBe(1);
  });
});
