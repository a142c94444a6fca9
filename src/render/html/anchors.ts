import { catalogueOrder } from '../../detect/rules/index.js';

// Ids and links inside the report are built from our own numbers and rule
// ids, never from log text, so no quoted field can forge or break a link.

export const ruleAnchor = (rule: string): string => `rule-${catalogueOrder(rule)}`;

export const timelineAnchor = (index: number): string => `timeline-${index}`;

export const findingAnchor = (number: number): string => `finding-${number}`;
