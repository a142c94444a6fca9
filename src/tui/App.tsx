import { Box } from 'ink';
import { Charts } from './components/Charts.js';
import { FindingsFeed } from './components/FindingsFeed.js';
import { Header } from './components/Header.js';
import { HelpOverlay } from './components/HelpOverlay.js';
import { Line } from './components/Line.js';
import { PaneTabs, type PaneTab } from './components/PaneTabs.js';
import { SessionDetailView } from './components/SessionDetailView.js';
import { SessionsTable } from './components/SessionsTable.js';
import { StatusBar, type StatusMode } from './components/StatusBar.js';
import type { DashboardState, Pane } from './dashboardState.js';
import type { Rect } from './layout.js';
import type { DashboardModel } from './model.js';
import { fitSegments } from './segments.js';
import { useDashboardKeys, type DashboardInputs, type DashboardView } from './useDashboardKeys.js';

/** The App takes exactly what its key handling needs; it re-lays out whenever width or height change. */
export type AppProps = DashboardInputs;

function tabs(view: DashboardView, model: DashboardModel): PaneTab[] {
  const position = (index: number, count: number) => (count === 0 ? '0' : `${index + 1}/${count}`);
  const sessions =
    view.sessions.length === model.sessions.length
      ? position(view.sessionIndex, view.sessions.length)
      : `${position(view.sessionIndex, view.sessions.length)} of ${model.sessions.length}`;
  return [
    { pane: 'feed', label: `Findings ${position(view.feedIndex, view.feed.length)}` },
    { pane: 'sessions', label: `Sessions ${sessions}` },
    { pane: 'charts', label: 'Charts' },
  ];
}

function statusMode(state: DashboardState): StatusMode {
  if (state.draft !== null) return 'filter';
  if (state.help) return 'help';
  return state.detail ? 'detail' : 'dashboard';
}

function PaneBody({ pane, rect, view, model }: { pane: Pane; rect: Rect; view: DashboardView; model: DashboardModel }) {
  const focused = view.state.pane === pane;
  switch (pane) {
    case 'feed':
      return <FindingsFeed items={view.feed} selected={view.feedIndex} width={rect.width} height={rect.height} focused={focused} />;
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
  if (state.help) return <HelpOverlay width={body.width} height={body.height} />;
  if (state.detail) {
    if (!view.detail) {
      const text = `  no detail for session ${state.detail.session} (esc goes back)`;
      return <Line segments={fitSegments([{ text, color: 'yellow' }], body.width)} />;
    }
    return <SessionDetailView detail={view.detail} scroll={state.detail.scroll} width={body.width} height={body.height} />;
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
  const { model } = props;
  const { layout, state } = view;
  return (
    <Box flexDirection="column" width={layout.width} height={layout.height} overflow="hidden">
      <Header {...model} width={layout.width} lines={layout.headerLines} />
      {layout.tabLines > 0 && (
        <PaneTabs tabs={tabs(view, model)} focused={state.pane} context={state.detail ? `session ${state.detail.session}` : undefined} width={layout.width} />
      )}
      <Box flexDirection="column" width={layout.body.width} height={layout.body.height} overflow="hidden">
        <Body view={view} model={model} />
      </Box>
      {layout.statusLines > 0 && <StatusBar mode={statusMode(state)} notice={state.notice} width={layout.width} />}
    </Box>
  );
}
