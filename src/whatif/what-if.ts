import { evidenceInLogOrder, resolveEvidence } from '../detect/evidence.js';
import type { RuleModule } from '../detect/rule.js';
import { engineDivergenceWith } from '../detect/rules/engine-divergence.js';
import { RULES } from '../detect/rules/index.js';
import { truncationCauses, truncationOutput, type TruncationJudgement } from '../detect/rules/silent-truncation.js';
import { ReconnectFacts } from '../detect/facts/reconnect-facts.js';
import type { ThreadOptions } from '../detect/parallel.js';
import { findingsOf } from '../pipeline/findings.js';
import { inMemory } from '../findings/recount.js';
import { DEFAULT_DETECT_OPTIONS, type DetectOptions, type RawFinding } from '../detect/types.js';
import { findingIdentity } from '../findings/identity.js';
import type { Finding, Report } from '../model/finding.js';
import type { LineRef } from '../model/record.js';
import { isoTime } from '../model/phrasing.js';
import type { Db } from '../store/db.js';
import { diffFindings } from './diff.js';
import { reDecideAll, type RawFlip } from './flips.js';
import { describeChange, headlines, type RemainingTruncation } from './headline.js';
import { BrokenCalls, resolveBrokenCalls } from './lost-calls.js';
import { policyOf, type Unresumable } from '../replay/re-decide.js';
import type { Flip, WhatIfOptions, WhatIfPolicy, WhatIfReport } from './types.js';

// `resumescope whatif`: the log judged twice, as logged and under another
// policy, and what changes between the two: findings that disappear or
// appear, and the reconnects the engine would decide the other way.

/**
 * Both worlds' rules are shared out between this thread and a worker where that pays
 * (detect/parallel.ts): the what-if world's variants of silent-truncation and engine-divergence,
 * functions of this thread, are judged here with their units, and the catalogue's rules there.
 */
export async function whatIf(db: Db, opts: WhatIfOptions, threads: ThreadOptions = {}): Promise<WhatIfReport> {
  const { change } = opts;
  const beforeOpts: DetectOptions = { ...DEFAULT_DETECT_OPTIONS, ...defined(opts.baseline ?? {}), retention: 'as-logged' };
  const afterOpts: DetectOptions = {
    ...beforeOpts,
    ...defined({
      fenceGraceMs: change.fenceGraceMs,
      stormCount: change.stormCount,
      stormWindowMs: change.stormWindowMs,
      duplicateCallWindowMs: change.duplicateCallWindowMs,
    }),
    retention: change.retention ?? 'as-logged',
  };
  const unresumable: Unresumable = change.unresumable ?? 'as-logged';
  const protocol = change.protocolVersion;
  const policy: WhatIfPolicy = { ...pick(afterOpts), unresumable, ...(protocol !== undefined && { protocolVersion: protocol }) };
  const disabled = opts.disabled ?? [];

  // The pipeline derives the timeline the replay reads, so it runs first.
  const before = inMemory(await findingsOf(db, { ...beforeOpts, disabled }, { threads, cached: opts.cached === true }));
  // The calls a broken stream loses are gathered in the same replay, session by session.
  const broken = protocol === undefined ? undefined : new BrokenCalls(protocol);
  const reDecided = reDecideAll(
    db,
    { policy: policyOf(beforeOpts), unresumable: 'as-logged' },
    { policy: { ...policyOf(afterOpts), ...(protocol !== undefined && { protocolVersion: protocol }) }, unresumable },
    describeChange(change, policy),
    { sharedSessionStore: beforeOpts.sharedSessionStore, onSession: broken?.onSession },
  );
  const calls = broken === undefined ? undefined : resolveBrokenCalls(db, broken);
  const forgiven = { count: 0 };
  const afterTruncations: { judged?: TruncationJudgement } = {};
  const afterWorld = { ...afterOpts, disabled, rules: afterRules(unresumable, reDecided.retentionShortfalls, forgiven, afterTruncations) };
  // The timeline is derived: findingsOf's derive finds nothing to do.
  const after = inMemory(await findingsOf(db, afterWorld, { threads }));
  const diff = diffFindings(before.findings, after.findings);
  const flips = resolveFlips(db, reDecided.flips);
  const { disappeared } = diff;
  const appeared = diff.appeared.map((f) => explainedByChange(f, flips));
  const moved = diff.moved.map(({ before: b, after: a }) => ({ rule: b.rule, session: b.session, before_at: b.at, after_at: a.at }));
  return {
    version: 1,
    policy,
    headline: headlines({
      change,
      policy,
      before: before.summary.by_rule,
      after: after.summary.by_rule,
      disappeared,
      appeared,
      moved,
      flips,
      remainingTruncations: remainingTruncations(before, after, reDecided.retentionShortfalls, afterTruncations.judged),
      shortfallsForgiven: forgiven.count,
      stillRefused: reDecided.stillRefused,
      calls,
    }),
    before: { by_rule: before.summary.by_rule },
    after: { by_rule: after.summary.by_rule },
    disappeared,
    appeared,
    ...(moved.length > 0 && { moved }),
    flips,
    ...(calls !== undefined && { calls }),
    rejected_lines: before.summary.rejected_lines,
  };
}

/**
 * The what-if world's rules: the cross-check under its unresumable choice, and no
 * silent-truncation for a short replay its retention would not have caused. Its
 * truncation judgement is kept in `truncations` for remainingTruncations.
 */
function afterRules(unresumable: Unresumable, shortfalls: ReadonlySet<number>, forgiven: { count: number }, truncations: { judged?: TruncationJudgement }): RuleModule[] {
  return RULES.map((rule): RuleModule => {
    if (rule.id === 'engine-divergence') return engineDivergenceWith(unresumable);
    if (rule.id !== 'silent-truncation') return rule;
    return {
      ...rule,
      detect(ctx) {
        truncations.judged = truncationCauses(ctx.db, ctx.opts, ctx.shared(ReconnectFacts.of));
        const out = truncationOutput(truncations.judged);
        const isForgiven = (f: RawFinding) => f.evidenceIds.some((id) => shortfalls.has(id));
        const kept = out.findings.filter((f) => !isForgiven(f));
        forgiven.count += out.findings.length - kept.length;
        return { ...out, findings: kept };
      },
    };
  });
}

/** The silent-truncations of the world as logged that the what-if world keeps, with their causes there. */
function remainingTruncations(before: Report, after: Report, shortfalls: ReadonlySet<number>, judged: TruncationJudgement | undefined): RemainingTruncation[] {
  if ((after.summary.by_rule['silent-truncation'] ?? 0) === 0 || judged === undefined) return [];
  const keys = new Set(before.findings.filter((f) => f.rule === 'silent-truncation').map(findingIdentity));
  return judged.truncations.filter((t) => !shortfalls.has(t.upgradeId))
    .map((t) => ({ session: t.session, at: isoTime(t.atMs), causes: t.causes, ...(t.unplaced && { unplaced: t.unplaced.eventId }) }))
    .filter((t) => keys.has(findingIdentity({ rule: 'silent-truncation', session: t.session, at: t.at, message: '' })));
}

/**
 * An engine-divergence of the what-if world only, at a reconnect whose engine decision flipped: as
 * logged the engine agreed with the server, so the server is not what the change shows wrong, and
 * "no rule explains it" would blame it. Its message says the change explains it, and how.
 */
function explainedByChange(f: Finding, flips: readonly Flip[]): Finding {
  if (f.rule !== 'engine-divergence') return f;
  const unexplained = / \(no rule (that ran )?explains it[^)]*\)$/;
  if (!unexplained.test(f.message)) return f;
  const upgrade = f.evidence.at(-1);
  const flip = flips.find((x) => x.session === f.session && x.at === f.at && sameLine(x.evidence.at(-1), upgrade));
  if (flip === undefined) return f;
  const verb = { resume: 'resumes it', attach: 'attaches it', fresh: 'starts it afresh', reject: 'refuses it' }[flip.before.decision] ?? 'decides it so';
  // flipWhy leads with "as logged: …" when the change accepts: that part is said here already.
  const how = flip.why.startsWith('as logged: ') ? flip.why.slice(flip.why.indexOf('; ') + 2) : flip.why;
  return { ...f, message: f.message.replace(unexplained, ` (explained by the what-if change alone: as logged the engine ${verb} too; ${how})`) };
}

function sameLine(a: LineRef | undefined, b: LineRef | undefined): boolean {
  return a !== undefined && b !== undefined && a.file === b.file && a.line === b.line;
}

function resolveFlips(db: Db, raw: RawFlip[]): Flip[] {
  const refs = resolveEvidence(db, raw.flatMap((f) => f.evidenceIds));
  return raw.map((f) => ({
    session: f.upgrade.session,
    at: isoTime(f.upgrade.tsMs),
    last_event_id: f.upgrade.lastEventId,
    logged: { decision: f.upgrade.decision ?? null, status: f.upgrade.status ?? null },
    before: f.before,
    after: f.after,
    why: f.why,
    evidence: evidenceInLogOrder(f.evidenceIds, refs),
  }));
}

function pick(o: DetectOptions): Omit<WhatIfPolicy, 'unresumable'> {
  return {
    retention: o.retention,
    fenceGraceMs: o.fenceGraceMs,
    stormCount: o.stormCount,
    stormWindowMs: o.stormWindowMs,
    duplicateCallWindowMs: o.duplicateCallWindowMs,
  };
}

function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
