import type { Finding } from '../model/finding.js';
import type { LineRef } from '../model/record.js';
import { RULE_IDS } from '../detect/rules/index.js';
import type { Flip, WhatIfReport } from './types.js';

// The what-if report for a person: the headline first, then the counts per
// rule, then the findings and decisions that change, each with its lines.

export function renderWhatIfText(r: WhatIfReport): string {
  const out: string[] = [];
  out.push(...r.headline, '');
  out.push(...ruleTable(r), '');
  out.push(...section('findings that disappear', r.disappeared.map(findingLines)));
  out.push(...section('findings that appear', r.appeared.map(findingLines)));
  out.push(...section('reconnect decisions that flip (engine as logged → under the change)', r.flips.map(flipLines)));
  return out.join('\n').replace(/\n+$/, '') + '\n';
}

function ruleTable(r: WhatIfReport): string[] {
  const rules = RULE_IDS.filter((id) => (r.before.by_rule[id] ?? 0) + (r.after.by_rule[id] ?? 0) > 0);
  if (rules.length === 0) return ['findings by rule: none before, none after'];
  const width = Math.max(...rules.map((id) => id.length), 'findings by rule'.length);
  const row = (name: string, before: string, after: string) => `${name.padEnd(width + 2)}${before.padStart(6)}${after.padStart(7)}`;
  return [
    row('findings by rule', 'before', 'after'),
    ...rules.map((id) => row(`  ${id}`, String(r.before.by_rule[id] ?? 0), String(r.after.by_rule[id] ?? 0))),
  ];
}

function section(title: string, items: string[][]): string[] {
  if (items.length === 0) return [`${title}: none`, ''];
  return [`${title} (${items.length}):`, ...items.flat(), ''];
}

function findingLines(f: Finding): string[] {
  return [`  ${f.severity} ${f.rule} ${f.session ?? '(no session)'} at ${f.at}`, `      ${f.message}`, `      ${lineList(f.evidence)}`];
}

function flipLines(f: Flip): string[] {
  const position = f.last_event_id === null ? 'no Last-Event-ID' : `Last-Event-ID ${f.last_event_id}`;
  const logged = f.logged.decision === null ? 'not logged' : `${f.logged.decision}${f.logged.status === null ? '' : ` ${f.logged.status}`}`;
  return [
    `  ${f.session ?? '(no session)'} at ${f.at}, ${position}: ${f.before.decision} ${f.before.status} → ${f.after.decision} ${f.after.status} (the server logged ${logged})`,
    `      why: ${f.why}`,
    `      ${lineList(f.evidence)}`,
  ];
}

/** "server.ndjson:4, 12, 13; other.ndjson:2", in the order given. */
export function lineList(refs: LineRef[]): string {
  const groups: { file: string; lines: number[] }[] = [];
  for (const ref of refs) {
    const last = groups[groups.length - 1];
    if (last?.file === ref.file) last.lines.push(ref.line);
    else groups.push({ file: ref.file, lines: [ref.line] });
  }
  return groups.map((g) => `${g.file}:${g.lines.join(', ')}`).join('; ');
}
