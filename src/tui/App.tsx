import { Box } from 'ink';
import { Charts } from './components/Charts.js';
import { FindingsFeed } from './components/FindingsFeed.js';
import { Header } from './components/Header.js';
import { HelpOverlay } from './components/HelpOverlay.js';
import { ColourContext, Line } from './components/Line.js';
import { PaneTabs, type PaneTab } from './components/PaneTabs.js';
import { SessionDetailView } from './components/SessionDetailView.js';
import { SessionsTable } from './components/SessionsTable.js';
import { StatusBar, type StatusMode } from './components/StatusBar.js';
import { RejectedView } from './components/RejectedView.js';
import { effectiveSearch, type DashboardState, type Pane } from './dashboardState.js';
import { findingMatches, rowMatches } from './search.js';
import type { Rect } from './layout.js';
import type { DashboardModel } from './view-model.js';
import { fitSegments } from './segments.js';
import { useDashboardKeys, type DashboardInputs, type DashboardView } from './useDashboardKeys.js';

/**
 * The App takes what its key handling needs, and whether to paint (off: no colour nor any other
 * style, as src/render/colour.ts decides for the terminal); it re-lays out whenever width or height change.
 */
export type AppProps = DashboardInputs & { colour?: boolean };

function tabs(view: DashboardView, model: DashboardModel): PaneTab[] {
  const position = (index: number, count: number) => (count === 0 ? '0' : `${index + 1}/${count}`);
  const sessions =
    view.sessions.length === model.sessions.length
      ? position(view.sessionIndex, view.sessions.length)
      : `${position(view.sessionIndex, view.sessions.length)} of ${model.sessions.length}`;
  const filters = [view.state.minSeverity ? `${view.state.minSeverity}+` : '', view.state.rule ?? ''].filter((f) => f !== '').join(' ');
  const findings =
    view.feed.length === view.feedTotal
      ? position(view.feedIndex, view.feed.length)
      : `${position(view.feedIndex, view.feed.length)} of ${view.feedTotal}`;
  return [
    { pane: 'feed', label: `Findings ${findings}${filters ? ` ${filters}` : ''}` },
    { pane: 'sessions', label: `Sessions ${sessions}` },
    { pane: 'charts', label: 'Charts' },
  ];
}

function statusMode(state: DashboardState): StatusMode {
  if (state.draft !== null) return 'filter';
  if (state.searchDraft !== null) return 'search';
  if (state.help) return 'help';
  if (state.rejected !== null) return 'rejected';
  return state.detail ? 'detail' : 'dashboard';
}

function PaneBody({ pane, rect, view, model }: { pane: Pane; rect: Rect; view: DashboardView; model: DashboardModel }) {
  const focused = view.state.pane === pane;
  const search = effectiveSearch(view.state);
  switch (pane) {
    case 'feed':
      return (
        <FindingsFeed
          items={view.feed}
          selected={view.feedIndex}
          width={rect.width}
          height={rect.height}
          focused={focused}
          matches={search ? (f) => findingMatches(f, search) : undefined}
        />
      );
    case 'sessions':
      return (
        <SessionsTable
          rows={view.sessions}
          total={model.sessions.length}
          selected={view.sessionIndex}
          sort={view.state.sort}
          filter={view.state.filter}
          draft={view.state.draft}
          width={rect.width}
          height={rect.height}
          focused={focused}
        />
      );
    case 'charts':
      return <Charts series={model.series} width={rect.width} height={rect.height} />;
  }
}

const PANE_TITLES: Record<Pane, string> = { feed: 'Findings', sessions: 'Sessions', charts: 'Charts' };

/** A pane in the wide layout: a title row (highlighted when focused) over its body. */
function TitledPane({ pane, rect, view, model }: { pane: Pane; rect: Rect; view: DashboardView; model: DashboardModel }) {
  const focused = view.state.pane === pane;
  return (
    <Box flexDirection="column" width={rect.width} height={rect.height + 1} overflow="hidden">
      <Line segments={fitSegments([{ text: focused ? `▶ ${PANE_TITLES[pane]}` : `  ${PANE_TITLES[pane]}`, bold: true, inverse: focused }], rect.width)} />
      <PaneBody pane={pane} rect={rect} view={view} model={model} />
    </Box>
  );
}

function Body({ view, model }: { view: DashboardView; model: DashboardModel }) {
  const { state, layout } = view;
  const body = layout.body;
  if (state.help) return <HelpOverlay width={body.width} height={body.height} scroll={state.helpScroll} />;
  if (state.rejected) {
    const page = view.rejected ?? { start: 0, lines: [] };
    return (
      <RejectedView lines={page.lines} start={page.start} total={model.rejected} selected={state.rejected.cursor} width={body.width} height={body.height} />
    );
  }
  if (state.detail) {
    if (!view.detail) {
      const text = `  no detail for session ${state.detail.session} (esc goes back)`;
      return <Line segments={fitSegments([{ text, color: 'yellow' }], body.width)} />;
    }
    const search = effectiveSearch(state);
    return (
      <SessionDetailView
        detail={view.detail}
        cursor={state.detail.cursor}
        findingKey={state.detail.findingKey}
        matches={search ? (r) => rowMatches(r, search) : undefined}
        width={body.width}
        height={body.height}
      />
    );
  }
  const { feed, sessions, charts } = layout.panes;
  if (!layout.wide) {
    const rect = layout.panes[state.pane] ?? body;
    return <PaneBody pane={state.pane} rect={rect} view={view} model={model} />;
  }
  return (
    <Box flexDirection="row" width={body.width} height={body.height} overflow="hidden">
      <Box flexDirection="column" width={feed?.width ?? 0} height={body.height} overflow="hidden">
        {feed && <TitledPane pane="feed" rect={feed} view={view} model={model} />}
        {sessions && <TitledPane pane="sessions" rect={sessions} view={view} model={model} />}
      </Box>
      <Box width={1} />
      {charts && <TitledPane pane="charts" rect={charts} view={view} model={model} />}
    </Box>
  );
}

/** The dashboard: header, pane tabs, the focused pane (or all panes when wide), status bar. */
export function App(props: AppProps) {
  const view = useDashboardKeys(props);
  const { model, layout, state } = view;
  return (
    <ColourContext.Provider value={props.colour ?? true}>
      <Box flexDirection="column" width={layout.width} height={layout.height} overflow="hidden">
        <Header {...model} paused={state.paused} heldBack={view.heldBack} width={layout.width} lines={layout.headerLines} />
        {layout.tabLines > 0 && (
          <PaneTabs tabs={tabs(view, model)} focused={state.pane} context={state.detail ? `session ${state.detail.session}` : undefined} width={layout.width} />
        )}
        <Box flexDirection="column" width={layout.body.width} height={layout.body.height} overflow="hidden">
          <Body view={view} model={model} />
        </Box>
        {layout.statusLines > 0 && <StatusBar mode={statusMode(state)} notice={state.notice} draft={state.searchDraft} width={layout.width} />}
      </Box>
    </ColourContext.Provider>
  );
}
