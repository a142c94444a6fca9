// What the user has done to the dashboard (pane, selection, filter, sort,
// drill-down), and how each key changes it. A pure reducer: the hook feeds it
// keys, tests can feed it directly.
import type { FeedItem, SessionRow } from './model.js';
import { DEFAULT_SORT, nextSort, visibleSessions, type SortOrder } from './selectors.js';
import { sanitize } from './text.js';

export const PANES = ['feed', 'sessions', 'charts'] as const;
export type Pane = (typeof PANES)[number];

export interface DashboardState {
  pane: Pane;
  /** Selection by identity, not index: a new finding arriving on top must not move it. */
  feedKey: string | null;
  sessionKey: string | null;
  /** The applied session filter. */
  filter: string;
  /** The filter being typed after `/`; null when not typing. Previewed live, committed by enter. */
  draft: string | null;
  sort: SortOrder;
  help: boolean;
  detail: { session: string; scroll: number } | null;
  /** A one-line message for the status bar, cleared by the next key. */
  notice: string | null;
}

export const INITIAL_DASHBOARD_STATE: DashboardState = {
  pane: 'feed',
  feedKey: null,
  sessionKey: null,
  filter: '',
  draft: null,
  sort: DEFAULT_SORT,
  help: false,
  detail: null,
  notice: null,
};

/** A key press, independent of ink's Key shape. */
export interface KeyPress {
  input: string;
  up?: boolean;
  down?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
  enter?: boolean;
  escape?: boolean;
  tab?: boolean;
  shift?: boolean;
  backspace?: boolean;
  ctrl?: boolean;
}

export interface KeyContext {
  /** The feed as shown (newest first). */
  feed: readonly FeedItem[];
  /** Every session row; the reducer applies filter and sort itself so a key typed mid-batch sees them. */
  sessions: readonly SessionRow[];
  pageSize: { feed: number; sessions: number; detail: number };
  /** Timeline rows of the open session, for clamping its scroll. */
  detailRows: number;
}

export interface KeyResult {
  state: DashboardState;
  quit: boolean;
}

export function effectiveFilter(state: DashboardState): string {
  return state.draft ?? state.filter;
}

export function indexOfKey<T>(list: readonly T[], key: string | null, keyOf: (t: T) => string): number {
  if (key === null) return 0;
  const i = list.findIndex((t) => keyOf(t) === key);
  return i < 0 ? 0 : i;
}

const feedKeyOf = (f: FeedItem): string => f.key;
const sessionKeyOf = (s: SessionRow): string => s.session;

/** How far a navigation key moves, or null when the key is not one. */
function movement(press: KeyPress, page: number, count: number, current: number): number | null {
  if (press.up || press.input === 'k') return current - 1;
  if (press.down || press.input === 'j') return current + 1;
  if (press.pageUp) return current - Math.max(1, page);
  if (press.pageDown) return current + Math.max(1, page);
  if (press.home || press.input === 'g') return 0;
  if (press.end || press.input === 'G') return count - 1;
  return null;
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, n));
}

function moveSelection(state: DashboardState, press: KeyPress, ctx: KeyContext): DashboardState | null {
  if (state.pane === 'feed') {
    const current = indexOfKey(ctx.feed, state.feedKey, feedKeyOf);
    const to = movement(press, ctx.pageSize.feed, ctx.feed.length, current);
    if (to === null) return null;
    const item = ctx.feed[clamp(to, 0, ctx.feed.length - 1)];
    return { ...state, feedKey: item ? item.key : state.feedKey };
  }
  if (state.pane === 'sessions') {
    const rows = visibleSessions(ctx.sessions, effectiveFilter(state), state.sort);
    const current = indexOfKey(rows, state.sessionKey, sessionKeyOf);
    const to = movement(press, ctx.pageSize.sessions, rows.length, current);
    if (to === null) return null;
    const row = rows[clamp(to, 0, rows.length - 1)];
    return { ...state, sessionKey: row ? row.session : state.sessionKey };
  }
  return movement(press, 1, 0, 0) === null ? null : state;
}

function openDetail(state: DashboardState, ctx: KeyContext): DashboardState {
  if (state.pane === 'feed') {
    const item = ctx.feed[indexOfKey(ctx.feed, state.feedKey, feedKeyOf)];
    if (!item) return { ...state, notice: 'no finding selected' };
    if (item.session === null) return { ...state, notice: `this ${item.rule} finding names no session` };
    return { ...state, detail: { session: item.session, scroll: 0 } };
  }
  if (state.pane === 'sessions') {
    const rows = visibleSessions(ctx.sessions, effectiveFilter(state), state.sort);
    const row = rows[indexOfKey(rows, state.sessionKey, sessionKeyOf)];
    if (!row) return { ...state, notice: 'no session selected' };
    return { ...state, detail: { session: row.session, scroll: 0 } };
  }
  return state;
}

function isPrintable(press: KeyPress): boolean {
  return !press.ctrl && press.input.length > 0 && sanitize(press.input) === press.input;
}

function reduceFilterTyping(state: DashboardState, draft: string, press: KeyPress, ctx: KeyContext): DashboardState {
  if (press.escape) return { ...state, draft: null };
  if (press.enter) return { ...state, filter: draft.trim(), draft: null };
  if (press.backspace) return { ...state, draft: [...draft].slice(0, -1).join('') };
  if (press.up || press.down || press.pageUp || press.pageDown) return moveSelection(state, press, ctx) ?? state;
  if (isPrintable(press)) return { ...state, draft: draft + press.input };
  return state;
}

function reduceDetail(state: DashboardState, detail: NonNullable<DashboardState['detail']>, press: KeyPress, ctx: KeyContext): DashboardState {
  if (press.escape || press.backspace || press.input === 'h') return { ...state, detail: null };
  const maxScroll = Math.max(0, ctx.detailRows - ctx.pageSize.detail);
  const to = movement(press, ctx.pageSize.detail, maxScroll + 1, detail.scroll);
  if (to === null) return state;
  return { ...state, detail: { ...detail, scroll: clamp(to, 0, maxScroll) } };
}

function cyclePane(pane: Pane, backwards: boolean): Pane {
  const i = PANES.indexOf(pane);
  return PANES[(i + (backwards ? PANES.length - 1 : 1)) % PANES.length] as Pane;
}

export function reduceKey(prev: DashboardState, press: KeyPress, ctx: KeyContext): KeyResult {
  const state = prev.notice === null ? prev : { ...prev, notice: null };
  if (press.ctrl && press.input === 'c') return { state, quit: true };

  if (state.draft !== null) return { state: reduceFilterTyping(state, state.draft, press, ctx), quit: false };

  if (press.input === 'q') return { state, quit: true };
  if (state.help) {
    const close = press.escape || press.input === '?';
    return { state: close ? { ...state, help: false } : state, quit: false };
  }
  if (press.input === '?') return { state: { ...state, help: true }, quit: false };

  if (state.detail !== null) return { state: reduceDetail(state, state.detail, press, ctx), quit: false };

  if (press.tab) return { state: { ...state, pane: cyclePane(state.pane, Boolean(press.shift)) }, quit: false };
  const jump = ['1', '2', '3'].indexOf(press.input);
  if (jump >= 0) return { state: { ...state, pane: PANES[jump] as Pane }, quit: false };
  if (press.enter) return { state: openDetail(state, ctx), quit: false };
  if (press.input === '/') return { state: { ...state, pane: 'sessions', draft: state.filter }, quit: false };
  if (press.input === 's') return { state: { ...state, sort: nextSort(state.sort) }, quit: false };
  if (press.input === 'S') return { state: { ...state, sort: { ...state.sort, descending: !state.sort.descending } }, quit: false };
  if (press.escape) return { state: state.filter !== '' ? { ...state, filter: '' } : state, quit: false };

  return { state: moveSelection(state, press, ctx) ?? state, quit: false };
}
