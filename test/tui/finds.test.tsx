// The dashboard that finds things: search with n/N, severity and rule filters,
// opening the evidence line, pause, the rejected-lines view, and the drill-down
// keeping the selected finding and its evidence in view. Driven through keys.
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App, type AppProps } from '../../src/tui/App.js';
import { Header } from '../../src/tui/components/Header.js';
import { Loading } from '../../src/tui/components/Loading.js';
import { RejectedView } from '../../src/tui/components/RejectedView.js';
import { findingLines } from '../../src/tui/components/SessionDetailView.js';
import { INITIAL_DASHBOARD_STATE, reduceKey, type DashboardState, type KeyContext, type KeyPress } from '../../src/tui/dashboardState.js';
import { KEY_HELP } from '../../src/tui/keymap.js';
import type { DashboardModel, FeedItem, RejectedLine } from '../../src/tui/view-model.js';
import { orderFeed } from '../../src/tui/selectors.js';
import { DETAIL_B21E90, FEED, SESSIONS, fixtureLoadDetail, fixtureModel } from './fixtures.js';
import { KEY, cells, frameLines, plain, waitFor } from './helpers.js';

afterEach(() => cleanup());

const REJECTED: RejectedLine[] = Array.from({ length: 40 }, (_, i) => ({
  file: 'bad.ndjson',
  line: 100 + i,
  reason: i % 2 ? 'not JSON' : 'missing ts',
  text: `garbage ${i} \u001b[2J<script>`,
}));
const loadRejected = (offset: number, limit: number) => REJECTED.slice(offset, offset + limit);

function mount(over: Partial<AppProps> = {}, size = { width: 80, height: 24 }) {
  const onQuit = vi.fn();
  const openLine = vi.fn((_ref: { file: string; line: number }): string | undefined => undefined);
  const props: AppProps = {
    model: { ...fixtureModel(), rejected: REJECTED.length },
    loadDetail: fixtureLoadDetail,
    loadRejected,
    openLine,
    width: size.width,
    height: size.height,
    onQuit,
    ...over,
  };
  const app = render(<App {...props} />);
  const text = () => plain(app.lastFrame());
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      app.stdin.write(k);
      await new Promise((r) => setTimeout(r, k === KEY.escape ? 20 : 5));
    }
  };
  return { app, text, press, openLine, onQuit, props };
}

/** The selected line of the findings feed (marked ›). */
const selectedLine = (text: string) => frameLines(text).find((l) => l.startsWith('›')) ?? '';

const ctx: KeyContext = {
  feed: orderFeed(FEED),
  sessions: SESSIONS,
  pageSize: { feed: 3, sessions: 2, detail: 4, rejected: 5, help: 5 },
  detailOf: fixtureLoadDetail,
  rejectedCount: REJECTED.length,
  rejectedRef: (i) => REJECTED[i] && { file: REJECTED[i]!.file, line: REJECTED[i]!.line },
  helpLines: KEY_HELP.length,
  live: false,
};

function keys(presses: (string | KeyPress)[], from: Partial<DashboardState> = {}, context: KeyContext = ctx) {
  let state: DashboardState = { ...INITIAL_DASHBOARD_STATE, ...from };
  const opened: { file: string; line: number }[] = [];
  for (const p of presses) {
    const r = reduceKey(state, typeof p === 'string' ? { input: p } : p, context);
    state = r.state;
    if (r.open) opened.push(r.open);
  }
  return { state, opened };
}
const ENTER: KeyPress = { input: '', enter: true };

describe('search: / then n / N', () => {
  it('finds findings by rule, message or evidence text, wraps around, and counts the matches', () => {
    // Newest first: cross-principal-replay, dual-writer, 404-storm, silent-truncation, event-id-without-session.
    const found = keys(['/', 's', 'e', 's', 's', 'i', 'o', 'n', ENTER]);
    // "session" is in event-id-without-session's rule and in no other finding's text… except those naming a session id.
    expect(found.state.search).toBe('session');
    const upgrade = keys(['/', 'u', 'p', 'g', 'r', 'a', 'd', 'e', ENTER]);
    // Only evidence text carries "upgrade": dual-writer (newest of the two) first.
    expect(upgrade.state.feedKey).toBe('f-dual');
    expect(upgrade.state.notice).toBe('match 1/2 for "upgrade"');
    const next = keys(['n'], upgrade.state);
    expect(next.state.feedKey).toBe('f-trunc');
    expect(next.state.notice).toBe('match 2/2 for "upgrade"');
    // Wraps, and N goes back.
    expect(keys(['n'], next.state).state.feedKey).toBe('f-dual');
    expect(keys(['N'], next.state).state.feedKey).toBe('f-dual');
    expect(keys(['N'], upgrade.state).state.feedKey).toBe('f-trunc');
  });

  it('says when nothing matches, and n without a search says how to start one', () => {
    expect(keys(['/', 'z', 'z', 'q', ENTER]).state.notice).toBe('no finding matches "zzq"');
    expect(keys(['n']).state.notice).toBe('no search yet: / to search');
  });

  it('in a session searches its timeline rows, then its findings', () => {
    const detail = { detail: { session: 'S-b21e90', cursor: 0, findingKey: null } };
    const s = keys(['/', 'o', 'p', 'e', 'n', 'e', 'd', ENTER], detail).state;
    expect(s.detail?.cursor).toBe(1); // g1 stream.opened
    expect(keys(['n'], s).state.detail?.cursor).toBe(3); // p7 stream.opened
    // "bob" is in a timeline row (replayed id 31 to bob) and in the cross-principal-replay message.
    const bob = keys(['/', 'b', 'o', 'b', ENTER], detail).state;
    expect(bob.detail?.cursor).toBe(5);
    const toFinding = keys(['n'], bob).state;
    expect(toFinding.detail?.findingKey).toBe('f-cross');
    expect(toFinding.notice).toBe('match 2/2 for "bob"');
  });

  it('marks the matches and the selection moves as you type (at 80x24 and 200x50)', async () => {
    for (const size of [
      { width: 80, height: 24 },
      { width: 200, height: 50 },
    ]) {
      const { text, press } = mount({}, size);
      await press('/', 's', 't', 'o', 'r', 'm');
      await waitFor(() => expect(text()).toContain('/storm▏'));
      expect(selectedLine(text())).toContain('404-storm');
      expect(selectedLine(text())).toMatch(/^›◆/);
      await press(KEY.enter);
      await waitFor(() => expect(text()).toContain('match 1/1 for "storm"'));
      for (const line of frameLines(text())) expect(cells(line)).toBeLessThanOrEqual(size.width);
      cleanup();
    }
  });
});

describe('filters: v for severity, r / R for rule', () => {
  it('v raises the severity floor and wraps back to everything', () => {
    const feedOf = (s: DashboardState) => orderFeed(FEED).filter((f) => (s.minSeverity === 'critical' ? f.severity === 'critical' : true));
    const one = keys(['v']).state;
    expect(one.minSeverity).toBe('warning');
    expect(keys(['v', 'v', 'v']).state.minSeverity).toBe('critical');
    expect(keys(['v', 'v', 'v', 'v']).state.minSeverity).toBeNull();
    expect(feedOf(keys(['v', 'v', 'v']).state).map((f) => f.key)).toEqual(['f-cross']);
    // Moving stays within what the filter keeps.
    expect(keys(['v', 'v', 'j', 'j', 'j', 'j', 'j']).state.feedKey).toBe('f-nosess');
  });

  it('r steps through the rules present, R back, and esc clears both filters', () => {
    expect(keys(['r']).state.rule).toBe('404-storm');
    expect(keys(['r', 'r']).state.rule).toBe('cross-principal-replay');
    expect(keys(['R']).state.rule).toBe('silent-truncation');
    const cleared = keys(['r', 'v', { input: '', escape: true }]).state;
    expect(cleared).toMatchObject({ rule: null, minSeverity: null });
  });

  it('the feed shows what is kept, with "n of total" in its tab', async () => {
    const { text, press } = mount();
    await press('v', 'v', 'v');
    await waitFor(() => expect(text()).toContain('Findings 1/1 of 5 critical+'));
    expect(text()).toContain('cross-principal-replay');
    expect(text()).not.toContain('404-storm');
    // Only the rules the severity floor keeps are offered.
    await press('r');
    await waitFor(() => expect(text()).toMatch(/Findings 1\/1 of 5 critical\+ cross-principal-replay/));
    await press('r');
    await waitFor(() => expect(text()).toContain('findings: critical and worse, every rule'));
    // Back to every severity (v wraps), every rule is offered again: 404-storm, then cross-principal-replay.
    await press('v', 'r', 'r');
    await waitFor(() => expect(text()).toContain('Findings 1/1 of 5 cross-principal-replay'));
  });
});

describe('o: open the evidence line', () => {
  it('from the feed opens the selected finding\'s first evidence line; in a session, the selected row', () => {
    expect(keys(['o']).opened).toEqual([{ file: 'server-b.ndjson', line: 88 }]);
    expect(keys(['j', 'o']).opened).toEqual([{ file: 'server-b.ndjson', line: 12 }]);
    const inSession = keys([ENTER, 'k', 'o']);
    // Opened at cross-principal-replay's evidence (row 6, line 88); k moves to the upgrade at line 80.
    expect(inSession.opened).toEqual([{ file: 'server-b.ndjson', line: 80 }]);
    expect(keys(['2', 'o']).state.notice).toMatch(/select one in findings/);
  });

  it('hands the line to the injected opener and shows its complaint', async () => {
    const openLine = vi.fn(() => 'server-b.ndjson:88 cannot be opened: gone');
    const { text, press } = mount({ openLine });
    await press('o');
    await waitFor(() => expect(text()).toContain('server-b.ndjson:88 cannot be opened: gone'));
    expect(openLine).toHaveBeenCalledWith({ file: 'server-b.ndjson', line: 88 });
  });

  it('without an opener says so', async () => {
    const { text, press } = mount({ openLine: undefined });
    await press('o');
    await waitFor(() => expect(text()).toContain('no editor or pager here'));
  });
});

describe('pause (live mode)', () => {
  const item = (i: number): FeedItem => ({ ...FEED[0]!, key: `new-${i}`, at: `2026-11-09T11:00:0${i}Z`, rule: 'replay-gap', message: `fresh ${i}` });

  it('p freezes what is drawn, counts what arrives, and p resumes', async () => {
    const live: DashboardModel = { ...fixtureModel(), mode: 'live' };
    const { app, text, press, props } = mount({ model: live });
    await press('p');
    await waitFor(() => expect(text()).toContain('⏸ paused, 0 new held back'));
    const grown = { ...live, feed: [...live.feed, item(1), item(2)] };
    app.rerender(<App {...props} model={grown} />);
    await waitFor(() => expect(text()).toContain('⏸ paused, 2 new held back'));
    expect(text()).not.toContain('replay-gap');
    await press('p');
    await waitFor(() => expect(text()).toContain('● live'));
    expect(text()).toContain('replay-gap');
  });

  it('a recorded log has nothing to pause, and shows no rate', async () => {
    const { text, press } = mount();
    expect(text()).not.toMatch(/\/s\b/);
    await press('p');
    await waitFor(() => expect(text()).toContain('nothing to pause'));
  });
});

describe('x: rejected lines', () => {
  it('lists where, why and how each starts, scrolls, and o opens one', () => {
    const s = keys(['x', 'j', 'j', 'o']);
    expect(s.state.rejected).toEqual({ cursor: 2 });
    expect(s.opened).toEqual([{ file: 'bad.ndjson', line: 102 }]);
    expect(keys(['x', 'G']).state.rejected).toEqual({ cursor: 39 });
    expect(keys(['x', 'x']).state.rejected).toBeNull();
    expect(keys(['x'], {}, { ...ctx, rejectedCount: 0 }).state.notice).toBe('no rejected lines');
  });

  it('draws the page with the selection in view, hostile text made harmless', async () => {
    const { text, press, app } = mount();
    await press('x');
    await waitFor(() => expect(text()).toContain('rejected lines (40)'));
    await press('G');
    await waitFor(() => expect(selectedLine(text())).toContain('bad.ndjson:139'));
    expect(app.lastFrame()).not.toContain('\u001b[2J');
    const frame = plain(render(<RejectedView lines={REJECTED.slice(0, 5)} start={0} total={40} selected={1} width={200} height={50} />).lastFrame());
    expect(frame).toMatch(/› bad\.ndjson:101\s+not JSON\s+garbage 1/);
  });
});

describe('drill-down keeps the selected finding and its evidence in view', () => {
  const many: FeedItem[] = Array.from({ length: 6 }, (_, i) => ({
    key: `k${i}`,
    rule: 'dual-writer',
    severity: 'error',
    session: 'S-b21e90',
    at: `2026-11-09T10:00:0${i}Z`,
    message: `finding ${i}`,
    evidence: [
      { file: 'server-b.ndjson', line: 12, text: `first ${i}` },
      { file: 'server-b.ndjson', line: 80, text: `second ${i}` },
    ],
  }));

  it('windows the findings block on the selected one', () => {
    const lines = findingLines(many, 'k4', 7).map((segs) => segs.map((s) => s.text).join(''));
    expect(lines).toHaveLength(7);
    const at = lines.findIndex((l) => l.includes('finding 4'));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toContain('first 4');
    expect(lines[at + 2]).toContain('second 4');
    expect(lines[0]).toMatch(/↑ \d+ lines above/);
  });

  it('at 80x24, ] walks every finding and each stays on screen with its evidence', async () => {
    const detail = { ...DETAIL_B21E90, findings: many };
    const { text, press } = mount({ loadDetail: () => detail });
    await press('2', 'j', KEY.enter);
    await waitFor(() => expect(text()).toContain('finding 0'));
    for (let i = 0; i < many.length; i++) {
      await waitFor(() => expect(frameLines(text()).find((l) => l.startsWith('› ERR'))).toContain(`finding ${i}`));
      expect(text()).toContain(`first ${i}`);
      expect(text()).toContain(`second ${i}`);
      // The selected finding's evidence row in the timeline is marked ▶ (selected) or ●.
      expect(text()).toMatch(/[▶●]\d\d:\d\d:\d\d\.\d{3}.*server-b\.ndjson:12/);
      await press(']');
    }
  });
});

describe('help lists every key, and at 80x24 scrolls to the last', () => {
  it('every key it lists is one the reducer answers', () => {
    // Each listed key, pressed from a fitting state, changes the state, asks for an action, or says why not.
    const probes: Record<string, { press: (string | KeyPress)[]; from?: Partial<DashboardState> }[]> = {
      'tab / shift+tab': [{ press: [{ input: '\t', tab: true }] }, { press: [{ input: '', tab: true, shift: true }] }],
      '1 2 3': [{ press: ['2'] }, { press: ['3'] }, { press: ['1'], from: { pane: 'charts' } }],
      '↑ ↓  k j  PgUp PgDn': [{ press: ['j'] }, { press: ['k'], from: { feedKey: 'f-dual' } }, { press: [{ input: '', down: true }] }, { press: [{ input: '', pageDown: true }] }],
      'g G  Home End': [{ press: ['G'] }, { press: ['g'], from: { feedKey: 'f-dual' } }],
      enter: [{ press: [ENTER] }],
      esc: [{ press: [{ input: '', escape: true }], from: { rule: '404-storm' } }],
      '/': [{ press: ['/'] }],
      'n N': [{ press: ['n'], from: { search: 'upgrade' } }, { press: ['N'], from: { search: 'upgrade' } }],
      f: [{ press: ['f'] }],
      's S': [{ press: ['s'] }, { press: ['S'] }],
      v: [{ press: ['v'] }],
      'r R': [{ press: ['r'] }, { press: ['R'] }],
      '[ ]': [{ press: [']'], from: { detail: { session: 'S-b21e90', cursor: 0, findingKey: 'f-cross' } } }],
      o: [{ press: ['o'] }],
      p: [{ press: ['p'] }],
      x: [{ press: ['x'] }],
      '?': [{ press: ['?'] }],
    };
    for (const k of KEY_HELP) {
      if (k.keys === 'q  ctrl+c') {
        expect(reduceKey(INITIAL_DASHBOARD_STATE, { input: 'q' }, ctx).quit).toBe(true);
        expect(reduceKey(INITIAL_DASHBOARD_STATE, { input: 'c', ctrl: true }, ctx).quit).toBe(true);
        continue;
      }
      const cases = probes[k.keys];
      expect(cases, `no probe for "${k.keys}"`).toBeDefined();
      for (const c of cases!) {
        const from = { ...INITIAL_DASHBOARD_STATE, ...c.from };
        const r = keys(c.press, c.from);
        const acted = r.opened.length > 0 || JSON.stringify(r.state) !== JSON.stringify(from);
        expect(acted, `${k.keys}: ${JSON.stringify(c.press)}`).toBe(true);
      }
    }
  });

  it('at 80x24 every key can be scrolled into view', async () => {
    const { text, press } = mount();
    await press('?');
    await waitFor(() => expect(text()).toContain('keys'));
    const seen = new Set<string>();
    for (let i = 0; i < KEY_HELP.length; i++) {
      for (const k of KEY_HELP) if (text().includes(k.action)) seen.add(k.keys);
      await press('j');
    }
    expect([...seen].sort()).toEqual(KEY_HELP.map((k) => k.keys).sort());
  });
});

describe('header, loading', () => {
  it('shows the latest rotation of a followed file', () => {
    const text = plain(
      render(
        <Header
          {...fixtureModel()}
          mode="live"
          sourceEvents={[{ at: '2026-11-09T10:00:05Z', source: '/var/log/mcp/app.log', text: 'rotated: following the new file from its start' }]}
          width={200}
          lines={2}
        />,
      ).lastFrame(),
    );
    expect(text).toContain('↻ 10:00:05 app.log rotated: following the new file from its start');
  });

  it('shows the latest loss of sessions without a log line, how many came before, and a hostile node name made safe', () => {
    const losses = [
      { node: 'mcp-a', sessions: 3, from: '2026-11-09T09:50:00Z', until: '2026-11-09T09:50:02Z' },
      { node: 'mcp-b\u001b[2J', sessions: 40, from: '2026-11-09T10:02:16.886Z', until: '2026-11-09T10:02:38.911Z' },
    ];
    const frame = render(<Header {...fixtureModel()} losses={losses} width={200} lines={2} />).lastFrame()!;
    expect(plain(frame)).toContain('⚠ mcp-b');
    expect(plain(frame)).toContain('[2J lost 40 sessions without a log line, 404s 10:02:16–10:02:38 (+1 earlier)');
    expect(frame).not.toContain('\u001b[2J');
    const one = plain(render(<Header {...fixtureModel()} losses={[{ ...losses[0]!, sessions: 1, until: losses[0]!.from }]} width={200} lines={2} />).lastFrame());
    expect(one).toContain('⚠ mcp-a lost 1 session without a log line, 404s 09:50:00');
    expect(one).not.toContain('earlier');
    expect(plain(render(<Header {...fixtureModel()} width={200} lines={2} />).lastFrame())).not.toContain('⚠');
  });

  it('says it is loading, with the line count', () => {
    expect(plain(render(<Loading lines={1234567} source="big.ndjson" phase="reading" width={80} />).lastFrame())).toMatch(
      /resumescope\s+loading 1,234,567 lines…\n\s+big\.ndjson/,
    );
    expect(plain(render(<Loading lines={10} source="x" phase="judging" width={80} />).lastFrame())).toContain('judging 10 lines…');
  });

  it('while loading, answers a key other than q by saying keys work once the dashboard opens', () => {
    expect(plain(render(<Loading lines={10} source="x" phase="reading" width={80} />).lastFrame())).not.toContain('keys work');
    expect(plain(render(<Loading lines={10} source="x" phase="reading" keyIgnored width={80} />).lastFrame())).toContain(
      'keys work once the dashboard opens; q quits now',
    );
  });
});
