import type { RuleId } from '../../model/rules.js';
import { EXPLANATIONS, type RuleExplanation } from '../explanations.js';

/**
 * The one place the HTML report reads a rule's explanation from, so that only
 * this follows when the texts move into the rule modules.
 */
export function explanationOf(rule: RuleId): RuleExplanation {
  return EXPLANATIONS[rule];
}
