import type { FindingList, Report } from '../model/finding.js';
import { isRuleId } from '../detect/rules/index.js';
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
  version: typeof BASELINE_VERSION;
  keys: BaselineEntry[];
}

/**
 * 3: the end-of-log rules are keyed on what they are, no longer on a line number (findings/identity.ts).
 * A version-3 file read by an earlier resumescope is refused with a message, not read with keys that match nothing.
 */
const BASELINE_VERSION = 3;

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
  return { version: BASELINE_VERSION, keys };
}

export function applyBaseline<F extends FindingList>(report: Report<F>, baseline: BaselineFile): { report: Report<F>; suppressed: number } {
  const known = new Set(baseline.keys.map((e) => e.key));
  if (known.size === 0) return { report, suppressed: 0 };
  const kept = keepFindings(report.findings, (f) => !known.has(findingFingerprint(f)));
  return { report: withFindings(report, kept), suppressed: report.findings.length - kept.length };
}

/** Validates parsed baseline JSON (the CLI reads the file); throws an Error naming what is wrong. */
export function parseBaseline(value: unknown): BaselineFile {
  if (!isObject(value) || (value.version !== 1 && value.version !== 2 && value.version !== BASELINE_VERSION)) {
    throw new Error(`baseline: expected an object with "version": ${BASELINE_VERSION} (or 1 or 2, written by an earlier resumescope)`);
  }
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
    return version === BASELINE_VERSION ? parsed : rekeyed(parsed);
  });
  return { version: BASELINE_VERSION, keys };
}

/**
 * An entry of an earlier version, keyed anew from what it names: rule, session, time and message, all
 * the identity needs (findings/identity.ts). Version 1 keyed on the message as well; versions 1 and 2
 * keyed a rule settled at the end of the log on the line of its first evidence, which moves.
 */
function rekeyed(e: BaselineEntry): BaselineEntry {
  return { ...e, key: findingFingerprint(e) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
