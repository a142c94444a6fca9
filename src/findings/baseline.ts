import { createHash } from 'node:crypto';
import type { Finding, Report } from '../model/finding.js';
import { isRuleId, type RuleId } from '../model/rules.js';
import { withFindings } from './recount.js';

export interface BaselineEntry {
  key: string;
  rule: RuleId;
  session: string | null;
  at: string;
  message: string;
}

/** A file of known findings to suppress, written by `--write-baseline`. */
export interface BaselineFile {
  version: 1;
  keys: BaselineEntry[];
}

/**
 * Identity of a finding across re-runs: rule, session, time and message, but
 * not the evidence, whose line numbers move whenever an export is cut
 * differently (a few more lines of an unrelated log at the top).
 */
export function findingKey(f: Pick<Finding, 'rule' | 'session' | 'at' | 'message'>): string {
  // JSON of a tuple keeps field boundaries unambiguous ("a|b" + "c" vs "a" + "b|c").
  const identity = JSON.stringify([f.rule, f.session, f.at, f.message]);
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
}

export function writeBaseline(report: Report): BaselineFile {
  const byKey = new Map<string, BaselineEntry>();
  for (const f of report.findings) {
    const key = findingKey(f);
    byKey.set(key, { key, rule: f.rule, session: f.session, at: f.at, message: f.message });
  }
  // Sorted by time, then rule, so that a reviewer reads a baseline diff in timeline order.
  const keys = [...byKey.values()].sort(
    (a, b) => compare(a.at, b.at) || compare(a.rule, b.rule) || compare(a.key, b.key),
  );
  return { version: 1, keys };
}

export function applyBaseline(report: Report, baseline: BaselineFile): { report: Report; suppressed: number } {
  const known = new Set(baseline.keys.map((e) => e.key));
  const kept = report.findings.filter((f) => !known.has(findingKey(f)));
  return { report: withFindings(report, kept), suppressed: report.findings.length - kept.length };
}

/** Validates parsed baseline JSON (the CLI reads the file); throws an Error naming what is wrong. */
export function parseBaseline(value: unknown): BaselineFile {
  if (!isObject(value) || value.version !== 1) throw new Error('baseline: expected an object with "version": 1');
  if (!Array.isArray(value.keys)) throw new Error('baseline: "keys" must be an array');
  const keys = value.keys.map((entry: unknown, i: number): BaselineEntry => {
    if (!isObject(entry) || typeof entry.key !== 'string' || !/^[0-9a-f]{16}$/.test(entry.key)) {
      throw new Error(`baseline: keys[${i}].key must be a 16-digit hex string`);
    }
    if (typeof entry.rule !== 'string' || !isRuleId(entry.rule)) {
      throw new Error(`baseline: keys[${i}].rule must be a rule id`);
    }
    return {
      key: entry.key,
      rule: entry.rule,
      session: typeof entry.session === 'string' ? entry.session : null,
      at: typeof entry.at === 'string' ? entry.at : '',
      message: typeof entry.message === 'string' ? entry.message : '',
    };
  });
  return { version: 1, keys };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
