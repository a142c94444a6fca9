import { RULE_IDS, type RuleId } from '../../model/rules.js';

// Ids and links inside the report are built from our own numbers and rule
// ids, never from log text, so no quoted field can forge or break a link.

export const ruleAnchor = (rule: RuleId): string => `rule-${RULE_IDS.indexOf(rule)}`;

export const timelineAnchor = (index: number): string => `timeline-${index}`;

export const findingAnchor = (number: number): string => `finding-${number}`;
