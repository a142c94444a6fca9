// Where each pane goes for a given terminal size. Pure arithmetic, so the key
// handler (page sizes) and the renderer agree, and a resize is just new props.
import type { Pane } from './dashboardState.js';

export interface Rect {
  width: number;
  height: number;
}

export interface Layout {
  width: number;
  height: number;
  headerLines: 0 | 1 | 2;
  tabLines: number;
  statusLines: number;
  /** Rows between the tab line and the status bar. */
  body: Rect;
  /** Side by side: feed over sessions on the left, charts on the right, all visible at once. */
  wide: boolean;
  /** The area each visible pane gets; a pane absent here is hidden (narrow layout shows the focused one). */
  panes: Partial<Record<Pane, Rect>>;
}

const WIDE_MIN_WIDTH = 140;
const WIDE_MIN_HEIGHT = 30;

export function computeLayout(width: number, height: number, focused: Pane): Layout {
  const w = Math.max(1, Math.floor(width));
  const h = Math.max(1, Math.floor(height));
  // Chrome shrinks before the body does: a tiny terminal keeps one status line and the data.
  const headerLines = h >= 12 ? 2 : h >= 6 ? 1 : 0;
  const tabLines = h >= 8 ? 1 : 0;
  const statusLines = h >= 3 ? 1 : 0;
  const body: Rect = { width: w, height: Math.max(0, h - headerLines - tabLines - statusLines) };
  const wide = w >= WIDE_MIN_WIDTH && h >= WIDE_MIN_HEIGHT;
  if (!wide) {
    return { width: w, height: h, headerLines, tabLines, statusLines, body, wide, panes: { [focused]: body } };
  }
  // Each pane in the wide layout spends one row on its title.
  const leftWidth = Math.floor(w * 0.55);
  const rightWidth = w - leftWidth - 1;
  const feedHeight = Math.floor(body.height / 2);
  return {
    width: w,
    height: h,
    headerLines,
    tabLines,
    statusLines,
    body,
    wide,
    panes: {
      feed: { width: leftWidth, height: feedHeight - 1 },
      sessions: { width: leftWidth, height: body.height - feedHeight - 1 },
      charts: { width: rightWidth, height: body.height - 1 },
    },
  };
}
