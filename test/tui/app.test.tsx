import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../src/tui/App.js';
import type { DashboardModel, FeedItem } from '../../src/tui/view-model.js';
import { FEED_OLDEST_TO_NEWEST_RULES, fixtureLoadDetail, fixtureModel } from './fixtures.js';
import { KEY, frameLines, plain, waitFor } from './helpers.js';

afterEach(() => cleanup());

function mount(model: DashboardModel = fixtureModel(), size = { width: 80, height: 24 }) {
  const onQuit = vi.fn();
  const loadDetail = vi.fn(fixtureLoadDetail);
  const app = render(<App model={model} loadDetail={loadDetail} width={size.width} height={size.height} onQuit={onQuit} />);
  const text = () => plain(app.lastFrame());
  /** Types keys one at a time, as a person does, waiting for the frame to change where it should. */
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      app.stdin.write(k);
      // A lone ESC is only known to be one on the next tick.
      await new Promise((r) => setTimeout(r, k === KEY.escape ? 20 : 5));
    }
  };
  return { app, text, press, onQuit, loadDetail };
}

describe('App: dashboard', () => {
  it('starts on the findings feed, newest first, whatever order the model lists them in', () => {
    const { text } = mount();
    const rules = frameLines(text())
      .map((l) => FEED_OLDEST_TO_NEWEST_RULES.find((r) => l.includes(` ${r} `)))
      .filter((r): r is string => r !== undefined);
    expect(rules).toEqual([...FEED_OLDEST_TO_NEWEST_RULES].reverse());
    expect(text()).toContain('[Findings 1/5]');
  });

  it('tab cycles findings → sessions → charts → findings; shift+tab goes back', async () => {
    const { text, press } = mount();
    await press(KEY.tab);
    await waitFor(() => expect(text()).toContain('[Sessions 1/4]'));
    expect(text()).toMatch(/S-7f3a1c\s+live/);
    await press(KEY.tab);
    await waitFor(() => expect(text()).toContain('[Charts]'));
    expect(text()).toContain('── resume 29');
    await press(KEY.tab);
    await waitFor(() => expect(text()).toContain('[Findings 1/5]'));
    await press(KEY.shiftTab);
    await waitFor(() => expect(text()).toContain('[Charts]'));
  });

  it('j/k and arrows move the selection marker', async () => {
    const { text, press } = mount();
    await press('j', 'j');
    await waitFor(() => expect(text()).toMatch(/^› .*404-storm/m));
    await press(KEY.up);
    await waitFor(() => expect(text()).toMatch(/^› .*dual-writer/m));
    expect(text()).toContain('[Findings 2/5]');
  });

  it('a filter typed after / narrows the sessions table; enter applies it, esc clears it', async () => {
    const { text, press } = mount();
    await press('f', 'f', 'o', 'r', 'k');
    await waitFor(() => expect(text()).toContain('filter: fork▏'));
    // Previewed while typing: only the forked session is left.
    expect(text()).toMatch(/S-c4d5e6\s+forked/);
    expect(text()).not.toContain('S-7f3a1c');
    await press(KEY.enter);
    await waitFor(() => expect(text()).toContain('filter: fork  1 of 4 sessions'));
    expect(text()).not.toContain('S-b21e90');
    await press(KEY.escape);
    await waitFor(() => expect(text()).toContain('4 sessions  sort:'));
    expect(text()).toContain('S-b21e90');
  });

  it('esc while typing a filter cancels it and keeps the one applied before', async () => {
    const { text, press } = mount();
    await press('f', '7', 'f', KEY.enter);
    await waitFor(() => expect(text()).toContain('filter: 7f  1 of 4'));
    await press('/', KEY.backspace, KEY.backspace, 'z', 'z');
    await waitFor(() => expect(text()).toContain('no session matches "zz"'));
    await press(KEY.escape);
    await waitFor(() => expect(text()).toContain('filter: 7f  1 of 4'));
    expect(text()).toMatch(/S-7f3a1c\s+live/);
  });

  it('keys typed into a filter are text, not commands', async () => {
    const { text, press, onQuit } = mount();
    await press('f', 'q', 's', '?');
    await waitFor(() => expect(text()).toContain('filter: qs?▏'));
    expect(onQuit).not.toHaveBeenCalled();
    expect(text()).not.toContain('keys  (? or esc closes)');
  });

  it('s cycles the sort column and reorders the table', async () => {
    const { text, press } = mount();
    await press('2');
    await waitFor(() => expect(text()).toContain('sort: last seen ▼'));
    const order = () => frameLines(text()).flatMap((l) => /(S-[0-9a-f]{6})\s+(live|ended|forked|unknown)/.exec(l)?.[1] ?? []);
    expect(order()).toEqual(['S-7f3a1c', 'S-b21e90', 'S-c4d5e6', 'S-0a9f12']);
    await press('s');
    await waitFor(() => expect(text()).toContain('sort: findings ▼'));
    expect(order()[0]).toBe('S-b21e90');
    await press('s');
    await waitFor(() => expect(text()).toContain('sort: session ▲'));
    expect(order()).toEqual(['S-0a9f12', 'S-7f3a1c', 'S-b21e90', 'S-c4d5e6']);
    await press('S');
    await waitFor(() => expect(text()).toContain('sort: session ▼'));
    expect(order()).toEqual(['S-c4d5e6', 'S-b21e90', 'S-7f3a1c', 'S-0a9f12']);
  });
});

describe('App: drill-down', () => {
  it('enter on a session opens its lanes with file:line on every row; esc returns to the table', async () => {
    const { text, press, loadDetail } = mount();
    await press('2', 'j', KEY.enter);
    await waitFor(() => expect(text()).toContain('session S-b21e90  incarnation i-41'));
    expect(loadDetail).toHaveBeenLastCalledWith('S-b21e90');
    expect(text()).toMatch(/g1 \(get\) super.*│g2 \(get\) closed.*│p7 \(post\)/);
    expect(text()).toMatch(/opened via get\s*│.*server-b\.ndjson:12$/m);
    expect(text()).toContain('server-b.ndjson:80  {"kind":"upgrade"');
    expect(text()).toContain('esc back');
    await press(KEY.escape);
    await waitFor(() => expect(text()).toContain('[Sessions 2/4]'));
    expect(text()).toMatch(/^› S-b21e90/m);
  });

  it("enter on a finding opens the finding's session", async () => {
    const { text, press } = mount();
    await press(KEY.enter);
    await waitFor(() => expect(text()).toContain('session S-b21e90'));
    expect(text()).toContain('findings (2)');
  });

  it('a finding without a session explains why nothing opens', async () => {
    const { text, press, loadDetail } = mount();
    await press('G', KEY.enter);
    await waitFor(() => expect(text()).toContain('this event-id-without-session finding names no session'));
    expect(loadDetail).not.toHaveBeenCalled();
  });

  it('a session the loader does not know says so, and esc still goes back', async () => {
    const { text, press } = mount();
    await press('2', KEY.enter);
    await waitFor(() => expect(text()).toContain('no detail for session S-7f3a1c'));
    await press(KEY.escape);
    await waitFor(() => expect(text()).toContain('[Sessions 1/4]'));
  });
});

describe('App: help and quit', () => {
  it('? shows the help overlay and ? or esc hides it', async () => {
    const { text, press } = mount();
    await press('?');
    await waitFor(() => expect(text()).toContain('keys  (? or esc closes)'));
    expect(text()).toMatch(/f\s+filter sessions \(also \/ on the sessions pane\)/);
    expect(text()).not.toContain('cross-principal-replay');
    await press('?');
    await waitFor(() => expect(text()).toContain('cross-principal-replay'));
    await press('?', KEY.escape);
    await waitFor(() => expect(text()).toContain('cross-principal-replay'));
  });

  it('q calls onQuit, from the dashboard and from a drill-down', async () => {
    const first = mount();
    await first.press('q');
    await waitFor(() => expect(first.onQuit).toHaveBeenCalledTimes(1));
    const second = mount();
    await second.press(KEY.enter);
    await waitFor(() => expect(second.text()).toContain('session S-b21e90'));
    await second.press('q');
    await waitFor(() => expect(second.onQuit).toHaveBeenCalledTimes(1));
  });
});

describe('App: live updates', () => {
  it('keeps the selection on the same finding when newer ones arrive on top', async () => {
    const model = fixtureModel();
    const { app, text, press } = mount(model);
    await press('j');
    await waitFor(() => expect(text()).toMatch(/^› .*dual-writer/m));
    const newer: FeedItem = {
      key: 'f-new',
      rule: 'orphaned-request',
      severity: 'error',
      session: 'S-7f3a1c',
      at: '2026-11-09T10:00:09.000Z',
      message: 'sampling request 7 stranded on g1',
      evidence: [{ file: 'server-a.ndjson', line: 99 }],
    };
    app.rerender(
      <App model={{ ...model, feed: [newer, ...model.feed] }} loadDetail={fixtureLoadDetail} width={80} height={24} onQuit={() => {}} />,
    );
    await waitFor(() => expect(text()).toContain('orphaned-request'));
    expect(text()).toMatch(/^› .*dual-writer/m);
    expect(text()).toContain('[Findings 3/6]');
  });

  it('re-lays out when the size props change: all panes side by side when wide', async () => {
    const model = fixtureModel();
    const { app, text } = mount(model);
    expect(text()).not.toContain('── resume 29');
    app.rerender(<App model={model} loadDetail={fixtureLoadDetail} width={160} height={40} onQuit={() => {}} />);
    await waitFor(() => expect(text()).toContain('── resume 29'));
    const lines = frameLines(text());
    expect(lines.length).toBeLessThanOrEqual(40);
    expect(lines.some((l) => /cross-principal-replay.*decisions/.test(l))).toBe(true);
    expect(text()).toMatch(/S-7f3a1c\s+live/);
  });
});
