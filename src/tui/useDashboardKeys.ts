// The dashboard's state and keyboard handling. Components stay pure: this hook
// owns selection, pane, filter, sort and drill-down, and hands the App exactly
// what to draw.
import { useInput, useStdin, type Key } from 'ink';
import { useCallback, useMemo, useRef, useState } from 'react';
import {
  INITIAL_DASHBOARD_STATE,
  effectiveFilter,
  indexOfKey,
  reduceKey,
  type DashboardState,
  type KeyContext,
  type KeyPress,
} from './dashboardState.js';
import { detailLayout } from './detailLayout.js';
import { computeLayout, type Layout } from './layout.js';
import type { DashboardModel, FeedItem, SessionDetail, SessionRow } from './model.js';
import { orderFeed, visibleSessions } from './selectors.js';
import { SESSIONS_TABLE_CHROME } from './components/SessionsTable.js';

export interface DashboardInputs {
  model: DashboardModel;
  loadDetail: (session: string) => SessionDetail | undefined;
  width: number;
  height: number;
  onQuit: () => void;
  /** Starting state, for embedding or tests; defaults to the feed pane with nothing selected. */
  initialState?: Partial<DashboardState>;
}

export interface DashboardView {
  state: DashboardState;
  layout: Layout;
  feed: FeedItem[];
  feedIndex: number;
  sessions: SessionRow[];
  sessionIndex: number;
  /** The open session's detail; undefined when none is open or the loader knows no such session. */
  detail: SessionDetail | undefined;
}

export function toKeyPress(input: string, key: Key): KeyPress {
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

export function useDashboardKeys({ model, loadDetail, width, height, onQuit, initialState }: DashboardInputs): DashboardView {
  const [state, setState] = useState<DashboardState>(() => ({ ...INITIAL_DASHBOARD_STATE, ...initialState }));
  // Keys can arrive several per render; each must see the state the previous one produced.
  const stateRef = useRef(state);
  stateRef.current = state;

  const feed = useMemo(() => orderFeed(model.feed), [model.feed]);
  const filter = effectiveFilter(state);
  const sessions = useMemo(() => visibleSessions(model.sessions, filter, state.sort), [model.sessions, filter, state.sort]);
  const layout = computeLayout(width, height, state.pane);
  const detailSession = state.detail?.session;
  // Re-read on every model change: in `watch` the open session keeps growing.
  const detail = useMemo(
    () => (detailSession === undefined ? undefined : loadDetail(detailSession)),
    [detailSession, loadDetail, model],
  );

  const context: KeyContext = {
    feed,
    sessions: model.sessions,
    pageSize: {
      feed: layout.panes.feed?.height ?? layout.body.height,
      sessions: Math.max(1, (layout.panes.sessions?.height ?? layout.body.height) - SESSIONS_TABLE_CHROME),
      detail: detail ? Math.max(1, detailLayout(detail, layout.body.height).timelineRows) : 1,
    },
    detailRows: detail?.rows.length ?? 0,
  };
  const contextRef = useRef(context);
  contextRef.current = context;
  const onQuitRef = useRef(onQuit);
  onQuitRef.current = onQuit;

  const { isRawModeSupported } = useStdin();
  // Reads only refs, so one subscription serves every render.
  const handleKey = useCallback((input: string, key: Key) => {
    // A held-down key, a fast typist or an ssh link delivers several characters
    // in one read ("jjj"); ink hands them over as one input: press each in turn.
    const plainBurst = input.length > 1 && !key.ctrl && !key.meta && !key.escape && !input.includes('\u001b');
    const presses = plainBurst ? [...input].map((ch) => toKeyPress(ch, { ...key, return: ch === '\r' })) : [toKeyPress(input, key)];
    for (const press of presses) {
      const result = reduceKey(stateRef.current, press, contextRef.current);
      stateRef.current = result.state;
      if (result.quit) {
        setState(result.state);
        onQuitRef.current();
        return;
      }
    }
    setState(stateRef.current);
  }, []);
  useInput(
    handleKey,
    // Without a TTY there are no keys to read; the dashboard still draws.
    { isActive: isRawModeSupported },
  );

  return {
    state,
    layout,
    feed,
    feedIndex: Math.min(indexOfKey(feed, state.feedKey, (f) => f.key), Math.max(0, feed.length - 1)),
    sessions,
    sessionIndex: indexOfKey(sessions, state.sessionKey, (s) => s.session),
    detail,
  };
}
