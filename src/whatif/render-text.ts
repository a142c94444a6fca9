import { appendAll } from '../model/arrays.js';
import type { Finding } from '../model/finding.js';
import type { LineRef } from '../model/record.js';
import { RULE_IDS } from '../detect/rules/index.js';
import { printable } from '../model/printable.js';
import { tallyBySession } from '../model/session-tally.js';
import type { CallChange, CallsWhatIf, Flip, SessionCalls, WhatIfReport } from './types.js';

// The what-if report for a person: the headline first, then the counts per
// rule, then the findings and decisions that change, each with its lines. The
// inputs' unusable files and rejected lines the CLI adds (cli/input-notes.ts).

export function renderWhatIfText(r: WhatIfReport): string {
  const out: string[] = [];
  out.push(...r.headline, '');
  out.push(...ruleTable(r), '');
  appendAll(out, section('findings that disappear', r.disappeared, (f) => `${f.rule} findings`, findingLines));
  appendAll(out, section('findings that appear', r.appeared, (f) => `${f.rule} findings`, findingLines));
  appendAll(out, section('reconnect decisions that flip (engine as logged → under the change)', r.flips, flipKind, flipLines));
  if (r.calls !== undefined) out.push(...callsSection(r.calls));
  // Session ids, tools, streams, reasons and file names come from the logs: every line is made printable.
  return out.map(printable).join('\n').replace(/\n+$/, '') + '\n';
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

/** Items shown in full per kind (a rule, or a flip's before → after); the rest are counted per session. */
export const SHOWN_PER_KIND = 10;

/**
 * The items in the order given, the first SHOWN_PER_KIND of each kind in full; then, per kind, the rest
 * counted per session. A short retention can change thousands of findings: the report stays a page.
 */
function section<T extends { session: string | null }>(title: string, items: T[], kindOf: (item: T) => string, lines: (item: T) => string[]): string[] {
  if (items.length === 0) return [`${title}: none`, ''];
  const shown = new Map<string, number>();
  const rest = new Map<string, Map<string, number>>(); // kind → session → items not shown
  const out = [`${title} (${items.length}):`];
  for (const item of items) {
    const kind = kindOf(item);
    const n = shown.get(kind) ?? 0;
    if (n < SHOWN_PER_KIND) {
      shown.set(kind, n + 1);
      out.push(...lines(item));
      continue;
    }
    const perSession = rest.get(kind) ?? new Map<string, number>();
    const session = item.session ?? '(no session)';
    perSession.set(session, (perSession.get(session) ?? 0) + 1);
    rest.set(kind, perSession);
  }
  for (const [kind, perSession] of rest) out.push(restLine(kind, perSession));
  if (rest.size > 0) out.push('  --format json lists every one');
  return [...out, ''];
}

function restLine(kind: string, perSession: ReadonlyMap<string, number>): string {
  const { hidden, named, unnamed } = tallyBySession(perSession, 8, (a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const more = unnamed > 0 ? `, and ${unnamed} other session${unnamed === 1 ? '' : 's'}` : '';
  return `  … ${hidden} more ${kind} in ${perSession.size} session${perSession.size === 1 ? '' : 's'}: ${named.map(([s, n]) => `${s} (${n})`).join(', ')}${more}`;
}

function flipKind(f: Flip): string {
  return `${f.before.decision} → ${f.after.decision} flips`;
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

/** Per session: what it loses, then each call whose response stream broke. */
function callsSection(c: CallsWhatIf): string[] {
  const title = `client requests whose response stream broke (as logged → with protocol ${c.protocol_version})`;
  const count = c.sessions.reduce((n, s) => n + s.calls.length, 0);
  if (count === 0) return [`${title}: none`, ''];
  return [`${title} (${count}):`, ...c.sessions.flatMap(sessionLines), ''];
}


function sessionLines(s: SessionCalls): string[] {
  const version = s.protocol_version === null ? 'no version logged' : `logged ${s.protocol_version}`;
  const counts = [`${s.lost} lost`, `${s.reissued} re-issued`, `${s.run_twice} run twice`].join(', ');
  const rescued = s.rescued > 0 ? `; ${s.rescued} rescued today` : '';
  return [`  ${s.session ?? '(no session)'} (${version}): ${counts}${rescued}`, ...s.calls.flatMap(callLines)];
}

function callLines(c: CallChange): string[] {
  const what = `${c.method ?? 'request'} ${c.rpc_id}${c.tool === null ? '' : ` (${c.tool})`}`;
  const fate = c.run_twice ? ', re-issued and run twice' : c.reissued ? ', re-issued' : '';
  return [`    ${what} at ${c.at}: ${c.before} → ${c.after}${fate}`, `        why: ${c.why}`, `        ${lineList(c.evidence)}`];
}

/** "server.ndjson:4, 12, 13; other.ndjson:2", in the order given. */
function lineList(refs: LineRef[]): string {
  const groups: { file: string; lines: number[] }[] = [];
  for (const ref of refs) {
    const last = groups[groups.length - 1];
    if (last?.file === ref.file) last.lines.push(ref.line);
    else groups.push({ file: ref.file, lines: [ref.line] });
  }
  return groups.map((g) => `${g.file}:${g.lines.join(', ')}`).join('; ');
}
