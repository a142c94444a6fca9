import type { Finding, NotKnowable, Report } from '../model/finding.js';
import { isoTime } from '../model/phrasing.js';
import { RULES, type RuleId } from '../model/rules.js';
import type { Db } from '../store/db.js';
import { deriveTimeline } from '../store/derive.js';
import { refreshStatistics } from '../store/statistics.js';
import { explainEngineDivergences } from './engine-divergence.js';
import { evidenceInLogOrder, resolveEvidence } from './evidence.js';
import { DETECTORS } from './registry.js';
import { summarize } from './summary.js';
import { DEFAULT_DETECT_OPTIONS, type DetectOptions, type Detector, type RawFinding } from './types.js';

export interface RunOptions extends Partial<DetectOptions> {
  /** Rules switched off by configuration. */
  disabled?: RuleId[];
  detectors?: Detector[];
}

/** Runs every detector over the timeline and assembles the contract's report. */
export function detect(db: Db, opts: RunOptions = {}): Report {
  deriveTimeline(db);
  refreshStatistics(db);
  const options: DetectOptions = { ...DEFAULT_DETECT_OPTIONS, ...stripUndefined(opts) };
  const disabled = new Set(opts.disabled ?? []);
  const raw: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const d of opts.detectors ?? DETECTORS) {
    if (d.rules.every((r) => disabled.has(r))) continue;
    const out = d.run(db, options);
    raw.push(...out.findings.filter((f) => !disabled.has(f.rule)));
    notKnowable.push(...out.notKnowable.filter((n) => !disabled.has(n.rule)));
  }
  return assemble(db, explainEngineDivergences(raw), notKnowable);
}

export function assemble(db: Db, raw: RawFinding[], notKnowable: NotKnowable[]): Report {
  const refs = resolveEvidence(db, raw.flatMap((f) => f.evidenceIds));
  const findings: Finding[] = raw
    .slice()
    .sort((a, b) => a.atMs - b.atMs || a.rule.localeCompare(b.rule) || (a.session ?? '').localeCompare(b.session ?? ''))
    .map((f) => ({
      rule: f.rule,
      severity: RULES[f.rule].severity,
      session: f.session,
      at: isoTime(f.atMs),
      message: f.message,
      evidence: evidenceInLogOrder(f.evidenceIds, refs),
    }));
  const byRule: Partial<Record<RuleId, number>> = {};
  for (const f of findings) byRule[f.rule] = (byRule[f.rule] ?? 0) + 1;
  const nk = dedupeNotKnowable(notKnowable).sort((a, b) => a.rule.localeCompare(b.rule) || (a.session ?? '').localeCompare(b.session ?? ''));
  return { version: 1, findings, not_knowable: nk, summary: { ...summarize(db), by_rule: byRule } };
}

function dedupeNotKnowable(list: NotKnowable[]): NotKnowable[] {
  const seen = new Set<string>();
  return list.filter((n) => {
    const k = `${n.rule}\0${n.session}\0${n.reason}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
