import { describe, expect, it } from 'vitest';
import { WatchRun } from '../../src/live/watch-run.js';
import type { Finding } from '../../src/model/finding.js';
import type { Severity } from '../../src/model/severity.js';
import { FINDINGS } from '../render/fixture.js';

// One watch run's stops and its code, without following anything: what `watch --fail-on` relies on.

const of = (severity: Severity): Finding => FINDINGS.find((f) => f.severity === severity)!;

function run(failOn: 'error' | 'never') {
  const printed: Finding[] = [];
  const violations: Finding[] = [];
  let stops = 0;
  const r = new WatchRun({ failOn, stdinEndStops: true, print: (f) => void printed.push(f), onViolation: (f) => void violations.push(f), onStop: () => stops++ });
  return { r, printed, violations, stops: () => stops };
}

describe('WatchRun', () => {
  it('prints findings until one at --fail-on, which stops the run with 1 and is the last printed', () => {
    const { r, printed, violations, stops } = run('error');
    r.announce([of('info'), of('error'), of('warning')]);
    expect(printed.map((f) => f.severity)).toEqual(['info', 'error']);
    expect(violations.map((f) => f.severity)).toEqual(['error']);
    expect(r.ended).toBe('fail-on');
    expect(stops()).toBe(1);
    // A later round (the run's last) prints nothing more once the run stopped with a violation.
    r.announce([of('critical')]);
    expect(printed).toHaveLength(2);
    expect(r.exitCode(false)).toBe(1);
  });

  it('still announces, and still fails on, findings of the last round after a timer began the stop', () => {
    const { r, printed } = run('error');
    r.stop(0, 'idle');
    r.announce([of('warning'), of('critical')]);
    expect(printed).toHaveLength(2);
    // The first reason to stop is kept; the code is the worst announced.
    expect(r.ended).toBe('idle');
    expect(r.exitCode(false)).toBe(1);
  });

  it('passes every finding without a guard, and exits 0 over an unusable input', () => {
    const { r, printed, violations } = run('never');
    r.announce(FINDINGS);
    expect(printed).toHaveLength(FINDINGS.length);
    expect(violations).toEqual([]);
    r.stop(0, 'idle');
    expect(r.exitCode(true)).toBe(0);
  });

  it('gives a guard 2 over an unusable input at --idle-exit, and keeps the 1 of a violation', () => {
    const idle = run('error').r;
    idle.stop(0, 'idle');
    expect(idle.caughtUp).toBe(true);
    expect(idle.exitCode(true)).toBe(2);
    const violated = run('error').r;
    violated.announce([of('error')]);
    expect(violated.caughtUp).toBe(false);
    expect(violated.exitCode(true)).toBe(1);
  });
});
