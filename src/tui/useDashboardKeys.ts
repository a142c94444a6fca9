// The dashboard's state and keyboard handling. Components stay pure: this hook
// owns selection, pane, filters, search, sort, drill-down and pause, and hands
// the App exactly what to draw.
import { useInput, useStdin, type Key } from 'ink';
import { useCallback, useMemo, useRef, useState } from 'react';
import {
  INITIAL_DASHBOARD_STATE,
  effectiveFilter,
  indexOfKey,
  reduceKey,
  visibleFeed,
  type DashboardState,
  type KeyContext,
  type KeyPress,
  type LineRef,
} from './dashboardState.js';
import { detailLayout } from './detailLayout.js';
import { KEY_HELP } from './keymap.js';
import { computeLayout, type Layout } from './layout.js';
import type { DashboardModel, FeedItem, RejectedLine, SessionDetail, SessionRow } from './view-model.js';
import { orderFeed, visibleSessions } from './selectors.js';
import { SESSIONS_TABLE_CHROME } from './components/SessionsTable.js';
import { HELP_CHROME } from './components/HelpOverlay.js';
import { REJECTED_CHROME } from './components/RejectedView.js';

export interface DashboardInputs {
  model: DashboardModel;
  loadDetail: (session: string) => SessionDetail | undefined;
  /** Rejected lines from `offset`, at most `limit`; none when absent. */
  loadRejected?: (offset: number, limit: number) => RejectedLine[];
  /**
   * Opens a log line for reading (editor or pager) and returns when it is closed;
   * returns a message for the status bar when it could not. Absent: `o` says so.
   */
  openLine?: (ref: LineRef) => string | undefined;
  width: number;
  height: number;
  onQuit: () => void;
  /** Starting state, for embedding or tests; defaults to the feed pane with nothing selected. */
  initialState?: Partial<DashboardState>;
}

export interface DashboardView {
  state: DashboardState;
  layout: Layout;
  /** What is drawn: the live model, or the one frozen when the user paused. */
  model: DashboardModel;
  /** Findings that arrived since the pause and are not drawn yet. */
  heldBack: number;
  /** The feed as shown: newest first, through the severity and rule filters. */
  feed: FeedItem[];
  /** Findings before those filters. */
  feedTotal: number;
  feedIndex: number;
  sessions: SessionRow[];
  sessionIndex: number;
  /** The open session's detail; undefined when none is open or the loader knows no such session. */
  detail: SessionDetail | undefined;
  /** The page of rejected lines in view, and the index of its first one. */
  rejected: { start: number; lines: RejectedLine[] } | undefined;
}

function toKeyPress(input: string, key: Key): KeyPress {
  return {
    input,
    up: key.upArrow,
    down: key.downArrow,
    pageUp: key.pageUp,
    pageDown: key.pageDown,
    home: key.home,
    end: key.end,
    enter: key.return,
    escape: key.escape,
    tab: key.tab,
    shift: key.shift,
    backspace: key.backspace || key.delete,
    ctrl: key.ctrl,
  };
}

/** First row of a `height`-row window over `count` rows keeping `selected` in view, centred where possible. */
function centred(count: number, selected: number, height: number): number {
  if (height <= 0 || count <= height) return 0;
  return Math.max(0, Math.min(selected - Math.floor(height / 2), count - height));
}

export function useDashboardKeys(props: DashboardInputs): DashboardView {
  const { loadDetail, loadRejected, width, height, initialState } = props;
  const [state, setState] = useState<DashboardState>(() => ({ ...INITIAL_DASHBOARD_STATE, ...initialState }));
  // Keys can arrive several per render; each must see the state the previous one produced.
  const stateRef = useRef(state);
  stateRef.current = state;

  // Paused: draw the model as it was when `p` was pressed; the live one keeps growing underneath.
  const frozen = useRef<DashboardModel | null>(null);
  if (state.paused && frozen.current === null) frozen.current = props.model;
  if (!state.paused) frozen.current = null;
  const model = frozen.current ?? props.model;
  const heldBack = frozen.current === null ? 0 : Math.max(0, props.model.feed.length - frozen.current.feed.length);

  const ordered = useMemo(() => orderFeed(model.feed), [model.feed]);
  const feed = useMemo(() => visibleFeed(ordered, state), [ordered, state.minSeverity, state.rule]); // eslint-disable-line react-hooks/exhaustive-deps
  const filter = effectiveFilter(state);
  const sessions = useMemo(() => visibleSessions(model.sessions, filter, state.sort), [model.sessions, filter, state.sort]);
  const layout = computeLayout(width, height, state.pane);
  const detailSession = state.detail?.session;
  // Re-read on every model change: in `watch` the open session keeps growing.
  const detail = useMemo(
    () => (detailSession === undefined ? undefined : loadDetail(detailSession)),
    [detailSession, loadDetail, model],
  );

  const rejectedPage = Math.max(1, layout.body.height - REJECTED_CHROME);
  const rejectedCount = model.rejected;
  const rejected = useMemo(() => {
    if (state.rejected === null || !loadRejected) return undefined;
    const start = centred(rejectedCount, state.rejected.cursor, rejectedPage);
    return { start, lines: loadRejected(start, rejectedPage) };
  }, [state.rejected, loadRejected, rejectedCount, rejectedPage]);

  const context: KeyContext = {
    feed: ordered,
    sessions: model.sessions,
    pageSize: {
      feed: layout.panes.feed?.height ?? layout.body.height,
      sessions: Math.max(1, (layout.panes.sessions?.height ?? layout.body.height) - SESSIONS_TABLE_CHROME),
      detail: detail ? Math.max(1, detailLayout(detail, layout.body.height).timelineRows) : 1,
      rejected: rejectedPage,
      help: Math.max(1, layout.body.height - HELP_CHROME),
    },
    detailOf: (s) => (s === detailSession ? detail : loadDetail(s)),
    rejectedCount: loadRejected ? rejectedCount : 0,
    rejectedRef: (i) => {
      const line = loadRejected?.(i, 1)[0];
      return line ? { file: line.file, line: line.line } : undefined;
    },
    helpLines: KEY_HELP.length,
    live: model.mode === 'live',
  };
  const contextRef = useRef(context);
  contextRef.current = context;
  const propsRef = useRef(props);
  propsRef.current = props;

  const { isRawModeSupported, setRawMode } = useStdin();
  // Reads only refs, so one subscription serves every render.
  const handleKey = useCallback(
    (input: string, key: Key) => {
      // A held-down key, a fast typist or an ssh link delivers several characters
      // in one read ("jjj"); ink hands them over as one input: press each in turn.
      const plainBurst = input.length > 1 && !key.ctrl && !key.meta && !key.escape && !input.includes('\u001b');
      const presses = plainBurst ? [...input].map((ch) => toKeyPress(ch, { ...key, return: ch === '\r' })) : [toKeyPress(input, key)];
      for (const press of presses) {
        const result = reduceKey(stateRef.current, press, contextRef.current);
        stateRef.current = result.state;
        if (result.quit) {
          setState(result.state);
          propsRef.current.onQuit();
          return;
        }
        if (result.open) {
          const opener = propsRef.current.openLine;
          let problem: string | undefined = 'no editor or pager here to open log lines with';
          if (opener) {
            // The child owns the terminal while it runs: keys must reach it, not us.
            if (isRawModeSupported) setRawMode(false);
            try {
              problem = opener(result.open);
            } finally {
              if (isRawModeSupported) setRawMode(true);
            }
          }
          stateRef.current = { ...stateRef.current, notice: problem ?? `back from ${result.open.file}:${result.open.line}` };
        }
      }
      setState(stateRef.current);
    },
    [isRawModeSupported, setRawMode],
  );
  useInput(
    handleKey,
    // Without a TTY there are no keys to read; the dashboard still draws.
    { isActive: isRawModeSupported },
  );

  return {
    state,
    layout,
    model,
    heldBack,
    feed,
    feedTotal: ordered.length,
    feedIndex: Math.min(indexOfKey(feed, state.feedKey, (f) => f.key), Math.max(0, feed.length - 1)),
    sessions,
    sessionIndex: indexOfKey(sessions, state.sessionKey, (s) => s.session),
    detail,
    rejected,
  };
}
