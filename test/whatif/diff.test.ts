import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/model/finding.js';
import { diffFindings } from '../../src/whatif/index.js';

const finding = (rule: Finding['rule'], session: string, at: string, message = 'm'): Finding => ({
  rule,
  severity: 'error',
  session,
  at,
  message,
  evidence: [{ file: 'server.ndjson', line: 1 }],
});

describe('diffFindings', () => {
  it('matches findings by rule, session and time, whatever their message says', () => {
    const before = [finding('silent-truncation', 'S1', 't1', 'trimmed'), finding('dual-writer', 'S1', 't1')];
    const after = [finding('silent-truncation', 'S1', 't1', 'beyond a retention of 30 s'), finding('dual-writer', 'S2', 't1')];
    const { disappeared, appeared } = diffFindings(before, after);
    expect(disappeared).toEqual([before[1]]);
    expect(appeared).toEqual([after[1]]);
  });

  it('matches one to one where two findings share a key', () => {
    const twice = [finding('404-storm', 'S1', 't1'), finding('404-storm', 'S1', 't1')];
    expect(diffFindings(twice, twice.slice(1))).toEqual({ disappeared: [twice[0]], appeared: [], moved: [] });
    expect(diffFindings(twice.slice(1), twice)).toEqual({ disappeared: [], appeared: [twice[1]], moved: [] });
  });

  it('matches a 404-storm whose time a threshold moved by session and the line it starts at', () => {
    const at = (line: number, time: string, rule = '404-storm', session = 'S1'): Finding => ({ ...finding(rule, session, time), evidence: [{ file: 'a', line }, { file: 'a', line: line + 1 }] });
    const { disappeared, appeared, moved } = diffFindings([at(7, 't5')], [at(7, 't3')]);
    expect({ disappeared, appeared }).toEqual({ disappeared: [], appeared: [] });
    expect(moved).toEqual([{ before: at(7, 't5'), after: at(7, 't3') }]);
    // Near misses: another start, another session, or a rule whose time is no threshold's.
    expect(diffFindings([at(7, 't5')], [at(9, 't3')]).moved).toEqual([]);
    expect(diffFindings([at(7, 't5')], [at(7, 't3', '404-storm', 'S2')]).moved).toEqual([]);
    expect(diffFindings([at(7, 't5', 'silent-truncation')], [at(7, 't3', 'silent-truncation')]).moved).toEqual([]);
  });
});
