// Derivations from the model that both the key handler and the panes need, so
// that "row 3" means the same row to both.
import type { FeedItem, SessionRow } from './view-model.js';

const SORT_COLUMNS = ['lastSeen', 'findings', 'session', 'state', 'streams', 'replayed', 'reemitted'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];

export interface SortOrder {
  column: SortColumn;
  descending: boolean;
}

/** The direction a column sorts in when first chosen: the most interesting rows on top. */
function naturalDescending(column: SortColumn): boolean {
  return column !== 'session' && column !== 'state';
}

export const DEFAULT_SORT: SortOrder = { column: 'lastSeen', descending: true };

export function nextSort(sort: SortOrder): SortOrder {
  const i = SORT_COLUMNS.indexOf(sort.column);
  const column = SORT_COLUMNS[(i + 1) % SORT_COLUMNS.length] as SortColumn;
  return { column, descending: naturalDescending(column) };
}

function timeKey(at: string): number {
  const t = Date.parse(at);
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}

/** Newest first; ties keep the producer's order (the sort is stable). */
export function orderFeed(feed: readonly FeedItem[]): FeedItem[] {
  return [...feed].sort((a, b) => timeKey(b.at) - timeKey(a.at));
}

/** Case-insensitive substring match on what a person would type: session id, state, last decision. */
export function filterSessions(rows: readonly SessionRow[], filter: string): SessionRow[] {
  const needle = filter.trim().toLowerCase();
  if (needle === '') return [...rows];
  return rows.filter((r) =>
    [r.session, r.state, r.lastTriple?.decision ?? ''].some((field) => field.toLowerCase().includes(needle)),
  );
}

function compareBy(column: SortColumn, a: SessionRow, b: SessionRow): number {
  switch (column) {
    case 'lastSeen':
      return timeKey(a.lastSeen) - timeKey(b.lastSeen);
    case 'session':
      return a.session < b.session ? -1 : a.session > b.session ? 1 : 0;
    case 'state':
      return a.state < b.state ? -1 : a.state > b.state ? 1 : 0;
    default:
      return a[column] - b[column];
  }
}

/** Sorted by the chosen column, ties by session id so the order never flickers between refreshes. */
function sortSessions(rows: readonly SessionRow[], sort: SortOrder): SessionRow[] {
  const sign = sort.descending ? -1 : 1;
  return [...rows].sort((a, b) => sign * compareBy(sort.column, a, b) || compareBy('session', a, b));
}

export function visibleSessions(rows: readonly SessionRow[], filter: string, sort: SortOrder): SessionRow[] {
  return sortSessions(filterSessions(rows, filter), sort);
}

/** First row of a window of `height` rows over `count` rows that keeps `selected` in view, centred where possible. */
export function windowStart(count: number, selected: number, height: number): number {
  if (height <= 0 || count <= height) return 0;
  const centred = selected - Math.floor(height / 2);
  return Math.max(0, Math.min(centred, count - height));
}
