// What `/` finds and what the severity and rule filters keep. One place, so
// the key handler (which moves to a match) and the panes (which mark it) agree.
import { SEVERITIES, severityRank, type Severity } from '../model/severity.js';
import type { FeedItem, SessionDetail, TimelineRow } from './view-model.js';

/** Severity floors `v` cycles through: everything, then warning and worse, error and worse, critical only. */
const SEVERITY_FLOORS: readonly (Severity | null)[] = [null, 'warning', 'error', 'critical'];

export function nextFloor(floor: Severity | null): Severity | null {
  const i = SEVERITY_FLOORS.indexOf(floor);
  return SEVERITY_FLOORS[(i + 1) % SEVERITY_FLOORS.length] ?? null;
}

export interface FeedFilter {
  minSeverity: Severity | null;
  rule: string | null;
}

export function filterFeed(feed: readonly FeedItem[], f: FeedFilter): FeedItem[] {
  if (f.minSeverity === null && f.rule === null) return [...feed];
  const floor = f.minSeverity === null ? 0 : severityRank(f.minSeverity);
  return feed.filter((i) => severityRank(i.severity) >= floor && (f.rule === null || i.rule === f.rule));
}

/** The rules present in the feed, in id order: what `r` cycles through. */
export function rulesIn(feed: readonly FeedItem[]): string[] {
  return [...new Set(feed.map((f) => f.rule))].sort();
}

/** `r` steps through the rules present: all → first → … → last → all. */
export function stepRule(rules: readonly string[], current: string | null, backwards: boolean): string | null {
  const cycle: (string | null)[] = [null, ...rules];
  const i = Math.max(0, cycle.indexOf(current));
  return cycle[(i + (backwards ? cycle.length - 1 : 1)) % cycle.length] ?? null;
}

function has(haystack: string, needle: string): boolean {
  return haystack.toLowerCase().includes(needle);
}

/** Case-insensitive substring over what a finding shows: rule, severity, session, message, evidence file:line and text. */
export function findingMatches(item: FeedItem, query: string): boolean {
  const needle = query.trim().toLowerCase();
  if (needle === '') return false;
  return (
    [item.rule, item.severity, item.session ?? '', item.message].some((s) => has(s, needle)) ||
    item.evidence.some((e) => has(`${e.file}:${e.line}`, needle) || (e.text !== undefined && has(e.text, needle)))
  );
}

export function rowMatches(row: TimelineRow, query: string): boolean {
  const needle = query.trim().toLowerCase();
  if (needle === '') return false;
  return [row.kind, row.text, row.lane ?? '', `${row.ref.file}:${row.ref.line}`].some((s) => has(s, needle));
}

/**
 * The next match from `from` (exclusive) in a direction, wrapping around; `from` itself
 * only when nothing else matches. -1 when nothing matches.
 */
export function nextMatch(count: number, from: number, backwards: boolean, matches: (i: number) => boolean): number {
  if (count === 0) return -1;
  const step = backwards ? -1 : 1;
  for (let k = 1; k <= count; k++) {
    const i = (((from + step * k) % count) + count) % count;
    if (matches(i)) return i;
  }
  return -1;
}

/** How many of `count` positions match, and which ordinal `at` is among them (1-based, 0 if it is not one). */
export function matchPosition(count: number, at: number, matches: (i: number) => boolean): { total: number; ordinal: number } {
  let total = 0;
  let ordinal = 0;
  for (let i = 0; i < count; i++) {
    if (!matches(i)) continue;
    total++;
    if (i === at) ordinal = total;
  }
  return { total, ordinal };
}

/** The timeline row a finding's evidence points at first, or -1. */
export function evidenceRow(detail: SessionDetail, item: FeedItem): number {
  for (const e of item.evidence) {
    const i = detail.rows.findIndex((r) => r.ref.file === e.file && r.ref.line === e.line);
    if (i >= 0) return i;
  }
  return -1;
}

export { SEVERITIES };
