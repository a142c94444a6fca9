import type { Finding, NotKnowable, Report } from '../model/finding.js';
import { isoTime } from '../model/phrasing.js';
import type { Db } from '../store/db.js';
import { deriveTimeline } from '../store/derive.js';
import { refreshStatistics } from '../store/statistics.js';
import { evidenceInLogOrder, resolveEvidence } from './evidence.js';
import type { RuleContext, RuleModule } from './rule.js';
import { explainEngineDivergences } from './rules/engine-divergence.js';
import { RULE_IDS, RULES, ruleOf } from './rules/index.js';
import { summarize } from './summary.js';
import { DEFAULT_DETECT_OPTIONS, type DetectOptions, type RawFinding } from './types.js';

export interface RunOptions extends Partial<DetectOptions> {
  /** Rules switched off by configuration. */
  disabled?: readonly string[];
  /** The rules to run, in catalogue order (what-if swaps some for variants); all by default. */
  rules?: readonly RuleModule[];
}

/** Runs every rule over the timeline and assembles the contract's report. */
export function detect(db: Db, opts: RunOptions = {}): Report {
  deriveTimeline(db);
  refreshStatistics(db);
  const options: DetectOptions = { ...DEFAULT_DETECT_OPTIONS, ...stripUndefined(opts) };
  const disabled = new Set(opts.disabled ?? []);
  const ctx = contextOf(db, options);
  const raw: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const rule of opts.rules ?? RULES) {
    if (disabled.has(rule.id)) continue;
    const out = rule.detect(ctx);
    const stray = [...out.findings, ...out.notKnowable].find((f) => f.rule !== rule.id);
    if (stray !== undefined) throw new Error(`rule ${rule.id} reported for ${stray.rule}`);
    raw.push(...out.findings);
    notKnowable.push(...out.notKnowable);
  }
  return assemble(db, explainEngineDivergences(raw, RULE_IDS), notKnowable);
}

/** One run's context: a fact several rules read is computed once, on first use. */
function contextOf(db: Db, opts: DetectOptions): RuleContext {
  const facts = new Map<unknown, unknown>();
  return {
    db,
    opts,
    shared<T>(fact: (db: Db, opts: DetectOptions) => T): T {
      if (!facts.has(fact)) facts.set(fact, fact(db, opts));
      return facts.get(fact) as T;
    },
  };
}

export function assemble(db: Db, raw: RawFinding[], notKnowable: NotKnowable[]): Report {
  const refs = resolveEvidence(db, raw.flatMap((f) => f.evidenceIds));
  const findings: Finding[] = raw
    .slice()
    .sort((a, b) => a.atMs - b.atMs || a.rule.localeCompare(b.rule) || (a.session ?? '').localeCompare(b.session ?? ''))
    .map((f) => ({
      rule: f.rule,
      severity: ruleOf(f.rule).severity,
      session: f.session,
      at: isoTime(f.atMs),
      message: f.message,
      evidence: evidenceInLogOrder(f.evidenceIds, refs),
    }));
  const byRule: Record<string, number> = {};
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
