// The pure pieces under the panes: key reducer, orderings, width fitting, chart bucketing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketSize, sumBuckets, total } from '../../src/tui/chartData.js';
import { fitColumns, type ColumnSpec } from '../../src/tui/columns.js';
import { INITIAL_DASHBOARD_STATE, reduceKey, type DashboardState, type KeyContext, type KeyPress } from '../../src/tui/dashboardState.js';
import { computeLayout } from '../../src/tui/layout.js';
import { toFeedItem } from '../../src/tui/view-model.js';
import { filterSessions, orderFeed, windowStart } from '../../src/tui/selectors.js';
import { cellWidth, formatClock, formatCount, sanitize, truncateEnd, truncateStart } from '../../src/tui/safe-text.js';
import { KEY_HELP } from '../../src/tui/keymap.js';
import { FEED, SESSIONS, fixtureLoadDetail } from './fixtures.js';

const ctx: KeyContext = {
  feed: orderFeed(FEED),
  sessions: SESSIONS,
  pageSize: { feed: 3, sessions: 2, detail: 4, rejected: 2, help: 5 },
  detailOf: fixtureLoadDetail,
  rejectedCount: 3,
  rejectedRef: (i) => (i < 3 ? { file: 'bad.ndjson', line: 10 + i } : undefined),
  helpLines: KEY_HELP.length,
  live: false,
};

function keys(presses: (string | KeyPress)[], from: Partial<DashboardState> = {}) {
  let state: DashboardState = { ...INITIAL_DASHBOARD_STATE, ...from };
  let quit = false;
  for (const p of presses) {
    const r = reduceKey(state, typeof p === 'string' ? { input: p } : p, ctx);
    state = r.state;
    quit ||= r.quit;
  }
  return { state, quit };
}

describe('reduceKey', () => {
  it('selects by identity and clamps at both ends', () => {
    expect(keys(['j', 'j']).state.feedKey).toBe('f-storm');
    expect(keys(['k', 'k']).state.feedKey).toBe('f-cross');
    expect(keys(['G']).state.feedKey).toBe('f-nosess');
    expect(keys(['G', 'j', 'j']).state.feedKey).toBe('f-nosess');
    expect(keys([{ input: '', pageDown: true }]).state.feedKey).toBe('f-trunc');
  });

  it('moves within the filtered, sorted sessions', () => {
    const { state } = keys(['2', '/', 'S', '-', { input: '', enter: true }, 'G']);
    expect(state.filter).toBe('S-');
    expect(state.sessionKey).toBe('S-0a9f12');
    // "live" matches only one session, so moving down stays on it.
    expect(keys(['2', '/', 'l', 'i', 'v', 'e', { input: '', down: true }]).state.sessionKey).toBe('S-7f3a1c');
  });

  it('opens the drill-down at the first finding evidence, clamps the row, and goes back with esc', () => {
    const opened = keys(['2', 'j', { input: '', enter: true }]).state;
    // The session's first finding (cross-principal-replay) rests on server-b.ndjson:88, row 6 of 7.
    expect(opened.detail).toEqual({ session: 'S-b21e90', cursor: 5, findingKey: 'f-cross' });
    const scrolled = keys(['j', 'j', 'j', 'j', 'j', 'j'], opened).state;
    expect(scrolled.detail?.cursor).toBe(6);
    expect(keys(['g'], scrolled).state.detail?.cursor).toBe(0);
    expect(keys([{ input: '', escape: true }], scrolled).state).toMatchObject({ detail: null, pane: 'sessions', sessionKey: 'S-b21e90' });
  });

  it('quits on q and ctrl+c, but q is text while a filter is being typed', () => {
    expect(keys(['q']).quit).toBe(true);
    expect(keys([{ input: 'c', ctrl: true }]).quit).toBe(true);
    expect(keys(['q'], { help: true }).quit).toBe(true);
    const typing = keys(['f', 'q']);
    expect(typing.quit).toBe(false);
    expect(typing.state.draft).toBe('q');
  });

  it('never lets a control character into the filter', () => {
    expect(keys(['f', 'a', '\u001b[2J', 'b']).state.draft).toBe('ab');
  });

  it('clears a notice on the next key', () => {
    const { state } = keys(['G', { input: '', enter: true }]);
    expect(state.notice).toMatch(/names no session/);
    expect(keys(['k'], state).state.notice).toBeNull();
  });
});

describe('selectors', () => {
  it('orders the feed newest first, stable for equal times', () => {
    const a = { ...FEED[0]!, key: 'a', at: '2026-11-09T10:00:00Z' };
    const b = { ...a, key: 'b' };
    const c = { ...a, key: 'c', at: '2026-11-09T10:00:00.001Z' };
    expect(orderFeed([a, b, c]).map((f) => f.key)).toEqual(['c', 'a', 'b']);
  });

  it('filters sessions by id, state or last decision, case-insensitively', () => {
    expect(filterSessions(SESSIONS, 'REJECT').map((s) => s.session)).toEqual(['S-c4d5e6']);
    expect(filterSessions(SESSIONS, 'ended').map((s) => s.session)).toEqual(['S-b21e90']);
    expect(filterSessions(SESSIONS, '  ')).toHaveLength(SESSIONS.length);
  });

  it('windows keep the selected row visible', () => {
    fc.assert(
      fc.property(fc.nat(500), fc.nat(500), fc.integer({ min: 1, max: 60 }), (count, sel, height) => {
        const selected = count === 0 ? 0 : sel % count;
        const start = windowStart(count, selected, height);
        expect(start).toBeGreaterThanOrEqual(0);
        if (count > 0) {
          expect(selected).toBeGreaterThanOrEqual(start);
          expect(selected).toBeLessThan(start + height);
        }
      }),
    );
  });

  it('turns an engine finding into a feed item with a key that tells findings apart', () => {
    const item = toFeedItem({ rule: 'dual-writer', severity: 'error', session: 'S1', at: 't', message: 'm', evidence: [{ file: 'a', line: 3 }] });
    expect(item).toMatchObject({ rule: 'dual-writer', session: 'S1', evidence: [{ file: 'a', line: 3 }] });
    expect(item.key).toBe('dual-writer|S1|t|a:3');
  });
});

describe('text and columns', () => {
  it('truncation never exceeds the width and keeps short text intact', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.integer({ min: 0, max: 100 }), (s, w) => {
        expect(cellWidth(truncateEnd(s, w))).toBeLessThanOrEqual(w);
        expect(cellWidth(truncateStart(s, w))).toBeLessThanOrEqual(w);
        if (cellWidth(sanitize(s)) <= w) expect(truncateEnd(s, w)).toBe(sanitize(s));
      }),
    );
    // Paths are cut from the left: the file name and line number are what locate the evidence.
    expect(truncateStart('/var/log/server.ndjson:1204', 14)).toBe('…r.ndjson:1204');
    expect(truncateEnd('cross-principal-replay', 10)).toBe('cross-pri…');
  });

  it('formats times and counts the same in every locale', () => {
    expect(formatClock('2026-11-09T10:00:02.5Z', true)).toBe('10:00:02.500');
    expect(formatClock('2026-11-09T10:00:02Z')).toBe('10:00:02');
    expect(formatClock('yesterday')).toBe('yesterday');
    expect(formatCount(1234567)).toBe('1,234,567');
  });

  it('fitted columns never exceed the width', () => {
    const spec = fc.record({
      width: fc.integer({ min: 1, max: 40 }),
      min: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
      priority: fc.integer({ min: 0, max: 10 }),
      grow: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(spec, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 200 }), (specs, width) => {
        const cols: ColumnSpec[] = specs.map((s, i) => ({ key: String(i), header: '', ...s, min: Math.min(s.min ?? s.width, s.width) }));
        const fitted = fitColumns(cols, width);
        const used = fitted.reduce((w, c) => w + c.width, 0) + (fitted.length - 1);
        expect(fitted.length).toBeGreaterThan(0);
        expect(used).toBeLessThanOrEqual(Math.max(width, 0));
      }),
    );
  });
});

describe('charts and layout', () => {
  it('bucketing keeps the total and fits the points', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(1000), { maxLength: 2000 }), fc.integer({ min: 1, max: 200 }), (values, points) => {
        const summed = sumBuckets(values, bucketSize(values.length, points));
        expect(summed.length).toBeLessThanOrEqual(points);
        expect(total(summed)).toBe(total(values));
      }),
    );
  });

  it('the body takes exactly what the chrome leaves, at any size', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 120 }), (w, h) => {
        const l = computeLayout(w, h, 'feed');
        expect(l.headerLines + l.tabLines + l.statusLines + l.body.height).toBe(Math.max(h, l.headerLines + l.tabLines + l.statusLines));
        for (const rect of Object.values(l.panes)) {
          expect(rect.width).toBeLessThanOrEqual(w);
          expect(rect.height).toBeLessThanOrEqual(l.body.height);
        }
      }),
    );
  });
});
