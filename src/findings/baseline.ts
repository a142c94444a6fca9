import type { FindingList, Report } from '../model/finding.js';
import { isRuleId, ruleOf } from '../detect/rules/index.js';
import { findingFingerprint } from './identity.js';
import { keepFindings, withFindings } from './recount.js';

export interface BaselineEntry {
  key: string;
  rule: string;
  session: string | null;
  at: string;
  message: string;
}

/** A file of known findings to suppress, written by `--write-baseline`. */
export interface BaselineFile {
  version: 2;
  keys: BaselineEntry[];
}


export function writeBaseline(report: Report<FindingList>): BaselineFile {
  const byKey = new Map<string, BaselineEntry>();
  for (const f of report.findings) {
    const key = findingFingerprint(f);
    byKey.set(key, { key, rule: f.rule, session: f.session, at: f.at, message: f.message });
  }
  // Sorted by time, then rule, so that a reviewer reads a baseline diff in timeline order.
  const keys = [...byKey.values()].sort(
    (a, b) => compare(a.at, b.at) || compare(a.rule, b.rule) || compare(a.key, b.key),
  );
  return { version: 2, keys };
}

export function applyBaseline<F extends FindingList>(report: Report<F>, baseline: BaselineFile): { report: Report<F>; suppressed: number } {
  const known = new Set(baseline.keys.map((e) => e.key));
  if (known.size === 0) return { report, suppressed: 0 };
  const kept = keepFindings(report.findings, (f) => !known.has(findingFingerprint(f)));
  return { report: withFindings(report, kept), suppressed: report.findings.length - kept.length };
}

/** Validates parsed baseline JSON (the CLI reads the file); throws an Error naming what is wrong. */
export function parseBaseline(value: unknown): BaselineFile {
  if (!isObject(value) || (value.version !== 1 && value.version !== 2)) throw new Error('baseline: expected an object with "version": 2');
  const version = value.version;
  if (!Array.isArray(value.keys)) throw new Error('baseline: "keys" must be an array');
  const keys = value.keys.map((entry: unknown, i: number): BaselineEntry => {
    if (!isObject(entry) || typeof entry.key !== 'string' || !/^[0-9a-f]{16}$/.test(entry.key)) {
      throw new Error(`baseline: keys[${i}].key must be a 16-digit hex string`);
    }
    if (typeof entry.rule !== 'string' || !isRuleId(entry.rule)) {
      throw new Error(`baseline: keys[${i}].rule must be a rule id`);
    }
    const parsed = {
      key: entry.key,
      rule: entry.rule,
      session: typeof entry.session === 'string' ? entry.session : null,
      at: typeof entry.at === 'string' ? entry.at : '',
      message: typeof entry.message === 'string' ? entry.message : '',
    };
    return version === 1 ? fromVersion1(parsed) : parsed;
  });
  return { version: 2, keys };
}

/**
 * Version 1 keyed on the message as well (findings/identity.ts says why no longer):
 * its entries name rule, session and time, which is the identity of every rule but
 * an end-of-log one; those keep their old key and match nothing until rewritten.
 */
function fromVersion1(e: BaselineEntry): BaselineEntry {
  if (ruleOf(e.rule).live.settles === 'end-of-log') return e;
  return { ...e, key: findingFingerprint({ rule: e.rule, session: e.session, at: e.at, evidence: [] }) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
