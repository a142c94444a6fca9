import type { NotKnowable } from '../model/finding.js';
import { RULE_IDS, type RuleId } from '../model/rules.js';
import { forEachUpgrade } from '../whatif/engine-replay.js';
import { decisionEvidence } from '../whatif/decision-evidence.js';
import { loggedClass, policyOf, reDecide, type Unresumable } from '../whatif/re-decide.js';
import { divergenceMessage } from '../whatif/wording.js';
import type { Detector, RawFinding } from './types.js';

// engine-divergence: replay each session's server records through the
// embedded engine and, at every logged upgrade, compare the class of the
// engine's decision with the server's. The engine knows the state before the
// upgrade only, so it is asked before it observes the server's answer.

const RULE = 'engine-divergence';

/**
 * The cross-check under the detect options' retention and thresholds; `unresumable`
 * fixes what a correct server does with an unresumable position (what-if), where the
 * default takes the server's own choice between a 409 and a signalled reset.
 */
export function engineDivergenceWith(unresumable: Unresumable = 'as-logged'): Detector {
  return {
    rules: [RULE],
    run(db, opts) {
      const policy = policyOf(opts);
      const findings: RawFinding[] = [];
      const notKnowable = new Map<string | null, NotKnowable>();
      forEachUpgrade(db, (p) => {
        const session = p.upgrade.session;
        if (p.unknowable !== undefined) {
          if (!notKnowable.has(session)) notKnowable.set(session, { rule: RULE, session, reason: p.unknowable });
          return;
        }
        const logged = loggedClass(p.upgrade);
        const decision = reDecide(p, policy, unresumable);
        if (logged === undefined || logged === decision.decision) return;
        findings.push({
          rule: RULE,
          session,
          atMs: p.upgrade.tsMs,
          message: divergenceMessage(p.upgrade, p.request, decision),
          // The upgrade comes last: explainEngineDivergences finds it there.
          evidenceIds: [...decisionEvidence(p, decision, policy), p.upgrade.id],
        });
      }, opts);
      return { findings, notKnowable: [...notKnowable.values()] };
    },
  };
}

export const engineDivergence: Detector = engineDivergenceWith();

/**
 * Names, in every engine-divergence message, the other rules whose findings cite the same
 * upgrade: "(explained by: silent-truncation, dual-writer)", or "(no rule explains it)".
 * Run over all detectors' raw findings, once they have all run.
 */
export function explainEngineDivergences(raw: RawFinding[]): RawFinding[] {
  const rulesByRecord = new Map<number, Set<RuleId>>();
  for (const f of raw) {
    if (f.rule === RULE) continue;
    for (const id of f.evidenceIds) {
      const rules = rulesByRecord.get(id) ?? new Set<RuleId>();
      rules.add(f.rule);
      rulesByRecord.set(id, rules);
    }
  }
  return raw.map((f) => {
    if (f.rule !== RULE) return f;
    const upgradeId = f.evidenceIds[f.evidenceIds.length - 1];
    const rules = upgradeId === undefined ? undefined : rulesByRecord.get(upgradeId);
    const named = RULE_IDS.filter((r) => rules?.has(r));
    return { ...f, message: `${f.message} ${named.length > 0 ? `(explained by: ${named.join(', ')})` : '(no rule explains it)'}` };
  });
}
