// What the user has done to the dashboard (pane, selection, filters, search,
// sort, drill-down, overlays), and how each key changes it. A pure reducer:
// the hook feeds it keys, tests can feed it directly. Side effects a key asks
// for (open a log line in an editor) come back in the result, for the hook.
import type { Severity } from '../model/severity.js';
import type { FeedItem, SessionDetail, SessionRow } from './view-model.js';
import {
  evidenceRow,
  filterFeed,
  findingMatches,
  matchPosition,
  nextFloor,
  nextMatch,
  rowMatches,
  rulesIn,
  stepRule,
} from './search.js';
import { DEFAULT_SORT, nextSort, visibleSessions, type SortOrder } from './selectors.js';
import { sanitize } from './safe-text.js';

const PANES = ['feed', 'sessions', 'charts'] as const;
export type Pane = (typeof PANES)[number];

export interface DetailState {
  session: string;
  /** The selected timeline row; the view scrolls to keep it in sight. */
  cursor: number;
  /** The selected finding of the session; its block stays in sight below the timeline. */
  findingKey: string | null;
}

export interface DashboardState {
  pane: Pane;
  /** Selection by identity, not index: a new finding arriving on top must not move it. */
  feedKey: string | null;
  sessionKey: string | null;
  /** The applied session filter. */
  filter: string;
  /** The filter being typed after `f` (or `/` on the sessions pane); null when not typing. */
  draft: string | null;
  /** The applied search (n / N move to its matches). */
  search: string;
  /** The search being typed after `/`; null when not typing. */
  searchDraft: string | null;
  /** Findings filters. */
  minSeverity: Severity | null;
  rule: string | null;
  sort: SortOrder;
  help: boolean;
  helpScroll: number;
  detail: DetailState | null;
  /** The rejected-lines view, with its selected row. */
  rejected: { cursor: number } | null;
  /** Live updates held back (live mode only). */
  paused: boolean;
  /** A one-line message for the status bar, cleared by the next key. */
  notice: string | null;
}

export const INITIAL_DASHBOARD_STATE: DashboardState = {
  pane: 'feed',
  feedKey: null,
  sessionKey: null,
  filter: '',
  draft: null,
  search: '',
  searchDraft: null,
  minSeverity: null,
  rule: null,
  sort: DEFAULT_SORT,
  help: false,
  helpScroll: 0,
  detail: null,
  rejected: null,
  paused: false,
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

export interface LineRef {
  file: string;
  line: number;
}

export interface KeyContext {
  /** The feed as the model has it, newest first, before the severity and rule filters. */
  feed: readonly FeedItem[];
  /** Every session row; the reducer applies filter and sort itself so a key typed mid-batch sees them. */
  sessions: readonly SessionRow[];
  pageSize: { feed: number; sessions: number; detail: number; rejected: number; help: number };
  /** A session's drill-down (the hook's memoized loader). */
  detailOf: (session: string) => SessionDetail | undefined;
  /** Rejected lines there are, and where the i-th is. */
  rejectedCount: number;
  rejectedRef: (index: number) => LineRef | undefined;
  /** Keys the help lists, for clamping its scroll. */
  helpLines: number;
  live: boolean;
}

export interface KeyResult {
  state: DashboardState;
  quit: boolean;
  /** Open this log line in $EDITOR or $PAGER. */
  open?: LineRef;
}

export function effectiveFilter(state: DashboardState): string {
  return state.draft ?? state.filter;
}

export function effectiveSearch(state: DashboardState): string {
  return state.searchDraft ?? state.search;
}

/** The feed as shown: the model's, through the severity and rule filters. */
export function visibleFeed(feed: readonly FeedItem[], state: DashboardState): FeedItem[] {
  return filterFeed(feed, { minSeverity: state.minSeverity, rule: state.rule });
}

export function indexOfKey<T>(list: readonly T[], key: string | null, keyOf: (t: T) => string): number {
  if (key === null) return 0;
  const i = list.findIndex((t) => keyOf(t) === key);
  return i < 0 ? 0 : i;
}

const feedKeyOf = (f: FeedItem): string => f.key;
const sessionKeyOf = (s: SessionRow): string => s.session;

/** Where a navigation key moves to, or null when the key is not one. */
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
    const feed = visibleFeed(ctx.feed, state);
    const current = indexOfKey(feed, state.feedKey, feedKeyOf);
    const to = movement(press, ctx.pageSize.feed, feed.length, current);
    if (to === null) return null;
    const item = feed[clamp(to, 0, feed.length - 1)];
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

function selectedFinding(state: DashboardState, ctx: KeyContext): FeedItem | undefined {
  const feed = visibleFeed(ctx.feed, state);
  return feed[indexOfKey(feed, state.feedKey, feedKeyOf)];
}

/** The drill-down of `session`, opened at `item`'s evidence when given, else at the first finding or the top. */
function detailAt(session: string, item: FeedItem | undefined, ctx: KeyContext): DetailState {
  const detail = ctx.detailOf(session);
  const finding = item ?? detail?.findings[0];
  const row = detail && finding ? evidenceRow(detail, finding) : -1;
  return { session, cursor: Math.max(0, row), findingKey: finding?.key ?? null };
}

function openDetail(state: DashboardState, ctx: KeyContext): DashboardState {
  if (state.pane === 'feed') {
    const item = selectedFinding(state, ctx);
    if (!item) return { ...state, notice: 'no finding selected' };
    if (item.session === null) return { ...state, notice: `this ${item.rule} finding names no session` };
    return { ...state, detail: detailAt(item.session, item, ctx) };
  }
  if (state.pane === 'sessions') {
    const rows = visibleSessions(ctx.sessions, effectiveFilter(state), state.sort);
    const row = rows[indexOfKey(rows, state.sessionKey, sessionKeyOf)];
    if (!row) return { ...state, notice: 'no session selected' };
    return { ...state, detail: detailAt(row.session, undefined, ctx) };
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

// --- search -----------------------------------------------------------------

/** Moves to the next (or previous) match of `query` from the current position; `from` -1 includes the current one. */
function jumpToMatch(state: DashboardState, query: string, backwards: boolean, ctx: KeyContext, inclusive: boolean): DashboardState {
  if (query.trim() === '') return state;
  if (state.detail !== null) {
    const detail = ctx.detailOf(state.detail.session);
    if (!detail) return state;
    // One sequence: the timeline's rows, then the session's findings.
    const rows = detail.rows.length;
    const count = rows + detail.findings.length;
    const matches = (i: number) =>
      i < rows ? rowMatches(detail.rows[i]!, query) : findingMatches(detail.findings[i - rows]!, query);
    const current = state.detail.cursor;
    const start = inclusive ? current - (backwards ? -1 : 1) : current;
    const at = nextMatch(count, start, backwards, matches);
    if (at < 0) return { ...state, notice: `no match for "${query}" in this session` };
    const { total, ordinal } = matchPosition(count, at, matches);
    const notice = `match ${ordinal}/${total} for "${query}"`;
    if (at < rows) return { ...state, detail: { ...state.detail, cursor: at }, notice };
    const finding = detail.findings[at - rows]!;
    const row = evidenceRow(detail, finding);
    return { ...state, detail: { ...state.detail, findingKey: finding.key, cursor: row >= 0 ? row : state.detail.cursor }, notice };
  }
  const feed = visibleFeed(ctx.feed, state);
  const matches = (i: number) => findingMatches(feed[i]!, query);
  const current = indexOfKey(feed, state.feedKey, feedKeyOf);
  const start = inclusive ? current - (backwards ? -1 : 1) : current;
  const at = nextMatch(feed.length, start, backwards, matches);
  if (at < 0) return { ...state, pane: 'feed', notice: `no finding matches "${query}"` };
  const { total, ordinal } = matchPosition(feed.length, at, matches);
  return { ...state, pane: 'feed', feedKey: feed[at]!.key, notice: `match ${ordinal}/${total} for "${query}"` };
}

function reduceSearchTyping(state: DashboardState, draft: string, press: KeyPress, ctx: KeyContext): DashboardState {
  if (press.escape) return { ...state, searchDraft: null };
  if (press.enter) {
    const search = draft.trim();
    return jumpToMatch({ ...state, search, searchDraft: null }, search, false, ctx, true);
  }
  let next = draft;
  if (press.backspace) next = [...draft].slice(0, -1).join('');
  else if (isPrintable(press)) next = draft + press.input;
  else return state;
  // Incremental, as in less: each character moves to the first match from where the selection is.
  const moved = jumpToMatch({ ...state, searchDraft: next }, next, false, ctx, true);
  return { ...moved, notice: null };
}

function searchAgain(state: DashboardState, backwards: boolean, ctx: KeyContext): DashboardState {
  if (state.search === '') return { ...state, notice: 'no search yet: / to search' };
  return jumpToMatch(state, state.search, backwards, ctx, false);
}

// --- drill-down ---------------------------------------------------------------

function stepFinding(state: DashboardState, detailState: DetailState, backwards: boolean, ctx: KeyContext): DashboardState {
  const detail = ctx.detailOf(detailState.session);
  if (!detail || detail.findings.length === 0) return { ...state, notice: 'this session has no findings' };
  const i = detail.findings.findIndex((f) => f.key === detailState.findingKey);
  const to = i < 0 ? 0 : clamp(i + (backwards ? -1 : 1), 0, detail.findings.length - 1);
  const finding = detail.findings[to]!;
  const row = evidenceRow(detail, finding);
  return { ...state, detail: { ...detailState, findingKey: finding.key, cursor: row >= 0 ? row : detailState.cursor } };
}

function reduceDetail(state: DashboardState, detailState: DetailState, press: KeyPress, ctx: KeyContext): KeyResult {
  const done = (s: DashboardState): KeyResult => ({ state: s, quit: false });
  if (press.escape || press.backspace || press.input === 'h') return done({ ...state, detail: null });
  if (press.input === '[' || press.input === ']') return done(stepFinding(state, detailState, press.input === '[', ctx));
  const detail = ctx.detailOf(detailState.session);
  if (press.input === 'o') {
    const row = detail?.rows[detailState.cursor];
    return row ? { state, quit: false, open: row.ref } : done({ ...state, notice: 'no timeline row selected' });
  }
  const rows = detail?.rows.length ?? 0;
  const to = movement(press, ctx.pageSize.detail, rows, detailState.cursor);
  if (to === null) return done(state);
  return done({ ...state, detail: { ...detailState, cursor: clamp(to, 0, Math.max(0, rows - 1)) } });
}

// --- overlays -------------------------------------------------------------------

function reduceRejected(state: DashboardState, cursor: number, press: KeyPress, ctx: KeyContext): KeyResult {
  if (press.escape || press.input === 'x' || press.backspace) return { state: { ...state, rejected: null }, quit: false };
  if (press.input === 'o') {
    const ref = ctx.rejectedRef(cursor);
    return ref ? { state, quit: false, open: ref } : { state: { ...state, notice: 'no rejected line selected' }, quit: false };
  }
  const to = movement(press, ctx.pageSize.rejected, ctx.rejectedCount, cursor);
  if (to === null) return { state, quit: false };
  return { state: { ...state, rejected: { cursor: clamp(to, 0, Math.max(0, ctx.rejectedCount - 1)) } }, quit: false };
}

function reduceHelp(state: DashboardState, press: KeyPress, ctx: KeyContext): DashboardState {
  if (press.escape || press.input === '?') return { ...state, help: false, helpScroll: 0 };
  const maxScroll = Math.max(0, ctx.helpLines - ctx.pageSize.help);
  const to = movement(press, ctx.pageSize.help, maxScroll + 1, state.helpScroll);
  return to === null ? state : { ...state, helpScroll: clamp(to, 0, maxScroll) };
}

function cyclePane(pane: Pane, backwards: boolean): Pane {
  const i = PANES.indexOf(pane);
  return PANES[(i + (backwards ? PANES.length - 1 : 1)) % PANES.length] as Pane;
}

function describeFilters(state: DashboardState): string {
  const parts = [state.minSeverity ? `${state.minSeverity} and worse` : 'every severity', state.rule ? `rule ${state.rule}` : 'every rule'];
  return `findings: ${parts.join(', ')}`;
}

/** Keys that work the same in the dashboard and in a session's drill-down. */
function reduceGlobal(state: DashboardState, press: KeyPress, ctx: KeyContext): KeyResult | null {
  const done = (s: DashboardState): KeyResult => ({ state: s, quit: false });
  if (press.input === '?') return done({ ...state, help: true, helpScroll: 0 });
  if (press.input === 'x') {
    if (ctx.rejectedCount === 0) return done({ ...state, notice: 'no rejected lines' });
    return done({ ...state, rejected: { cursor: 0 } });
  }
  if (press.input === 'p') {
    if (!ctx.live) return done({ ...state, notice: 'a recorded log does not move: nothing to pause' });
    return done({ ...state, paused: !state.paused, notice: state.paused ? 'resumed' : 'paused: new findings are held back (p resumes)' });
  }
  if (press.input === 'n' || press.input === 'N') return done(searchAgain(state, press.input === 'N', ctx));
  const searchHere = state.detail !== null || state.pane !== 'sessions';
  if (press.input === '/' && searchHere) return done({ ...state, searchDraft: '' });
  return null;
}

export function reduceKey(prev: DashboardState, press: KeyPress, ctx: KeyContext): KeyResult {
  const state = prev.notice === null ? prev : { ...prev, notice: null };
  const done = (s: DashboardState): KeyResult => ({ state: s, quit: false });
  if (press.ctrl && press.input === 'c') return { state, quit: true };

  if (state.draft !== null) return done(reduceFilterTyping(state, state.draft, press, ctx));
  if (state.searchDraft !== null) return done(reduceSearchTyping(state, state.searchDraft, press, ctx));

  if (press.input === 'q') return { state, quit: true };
  if (state.help) return done(reduceHelp(state, press, ctx));
  if (state.rejected !== null) return reduceRejected(state, state.rejected.cursor, press, ctx);

  const global = reduceGlobal(state, press, ctx);
  if (global) return global;

  if (state.detail !== null) return reduceDetail(state, state.detail, press, ctx);

  if (press.tab) return done({ ...state, pane: cyclePane(state.pane, Boolean(press.shift)) });
  const jump = ['1', '2', '3'].indexOf(press.input);
  if (jump >= 0) return done({ ...state, pane: PANES[jump] as Pane });
  if (press.enter) return done(openDetail(state, ctx));
  if (press.input === '/' || press.input === 'f') return done({ ...state, pane: 'sessions', draft: state.filter });
  if (press.input === 's') return done({ ...state, sort: nextSort(state.sort) });
  if (press.input === 'S') return done({ ...state, sort: { ...state.sort, descending: !state.sort.descending } });
  if (press.input === 'v') {
    const next = { ...state, pane: 'feed' as const, minSeverity: nextFloor(state.minSeverity) };
    return done({ ...next, notice: describeFilters(next) });
  }
  if (press.input === 'r' || press.input === 'R') {
    const next = { ...state, pane: 'feed' as const, rule: stepRule(rulesIn(filterFeed(ctx.feed, { minSeverity: state.minSeverity, rule: null })), state.rule, press.input === 'R') };
    return done({ ...next, notice: describeFilters(next) });
  }
  if (press.input === 'o') {
    const item = state.pane === 'feed' ? selectedFinding(state, ctx) : undefined;
    const ref = item?.evidence[0];
    if (!ref) return done({ ...state, notice: state.pane === 'feed' ? 'no evidence line to open' : 'o opens a finding\'s evidence: select one in findings' });
    return { state, quit: false, open: { file: ref.file, line: ref.line } };
  }
  if (press.escape) {
    if (state.filter !== '') return done({ ...state, filter: '' });
    if (state.minSeverity !== null || state.rule !== null) return done({ ...state, minSeverity: null, rule: null, notice: 'findings: every severity, every rule' });
    return done(state);
  }

  return done(moveSelection(state, press, ctx) ?? state);
}
