// The dashboard must never draw outside the size it is given: a line wider
// than the terminal wraps and a frame taller than it scrolls, which garbles
// every later redraw.
import fc from 'fast-check';
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/tui/App.js';
import type { DashboardState } from '../../src/tui/dashboardState.js';
import type { DashboardModel, SessionDetail } from '../../src/tui/view-model.js';
import { DETAIL_B21E90, fixtureLoadDetail, fixtureModel } from './fixtures.js';
import { cells, frameLines } from './helpers.js';

afterEach(() => cleanup());

const VIEWS: Record<string, Partial<DashboardState>> = {
  feed: { pane: 'feed' },
  sessions: { pane: 'sessions', filter: 'S-' },
  charts: { pane: 'charts' },
  filtering: { pane: 'sessions', draft: 'b21' },
  detail: { detail: { session: 'S-b21e90', cursor: 0, findingKey: 'f-dual' } },
  search: { searchDraft: 'storm' },
  rejected: { rejected: { cursor: 0 } },
  paused: { paused: true },
  help: { help: true },
};

function frameOf(model: DashboardModel, width: number, height: number, state: Partial<DashboardState>, load = fixtureLoadDetail) {
  const app = render(<App model={model} loadDetail={load} width={width} height={height} onQuit={() => {}} initialState={state} />);
  const frame = app.lastFrame();
  app.unmount();
  return frame;
}

function expectFits(frame: string | undefined, width: number, height: number) {
  const lines = frameLines(frame);
  expect(lines.length).toBeLessThanOrEqual(height);
  for (const line of lines) expect(cells(line), line).toBeLessThanOrEqual(width);
  // Fitting must not be done by pushing the chrome off screen: header on top, key hints at the bottom.
  if (height >= 12) expect(lines[0]).toMatch(/^res/);
  else if (height >= 6) expect(lines[0]).toMatch(/^rec/);
  if (height >= 3) {
    expect(lines).toHaveLength(height);
    expect(lines[lines.length - 1]).toMatch(/^(tab|esc|\? o|typ|\/|ent|…)/);
  }
}

describe('fits the terminal', () => {
  for (const [name, state] of Object.entries(VIEWS)) {
    it(`${name} at 80x24: no line over 80 cells, at most 24 lines`, () => {
      const frame = frameOf(fixtureModel(), 80, 24, state);
      expectFits(frame, 80, 24);
      // And it is not trivially small: the view fills the screen it was given.
      expect(frameLines(frame).length).toBeGreaterThanOrEqual(20);
    });
  }

  // Log content is untrusted and unbounded: ids and messages of any length, even escape sequences.
  const hostile = 'x'.repeat(120);
  const hostileModel = fixtureModel({
    sources: ['/var/log/mcp/very/deep/directory/structure/server-instance-0001.ndjson.gz'.repeat(3)],
    feed: [
      {
        key: 'h',
        rule: 'stale-writer-blocks-reconnect',
        severity: 'critical',
        session: `S-${hostile}`,
        at: '2026-11-09T10:00:00Z',
        message: `clear\u001b[2Jscreen\nsecond line\t\u202e${hostile}\u2066`,
        evidence: [{ file: `/${hostile}/server.ndjson`, line: 123456, text: `{"kind":"upgrade","x":"${hostile}"}` }],
      },
    ],
    sessions: [
      { session: `S-${hostile}`, state: 'forked', streams: 123456, lastTriple: { lastEventId: hostile, decision: 'reject', status: 409 }, replayed: 9_999_999, reemitted: 1, findings: 42, lastSeen: 'not a time' },
    ],
    records: 9_876_543_210,
  });
  const hostileDetail: SessionDetail = {
    ...DETAIL_B21E90,
    session: `S-${hostile}`,
    lanes: Array.from({ length: 9 }, (_, i) => ({ stream: `stream-${hostile}-${i}`, via: 'get', state: 'open' })),
    rows: DETAIL_B21E90.rows.map((r) => ({ ...r, text: `${r.text}\u001b[31m${hostile}`, ref: { file: `/${hostile}/${r.ref.file}`, line: r.ref.line * 1000 } })),
    findings: hostileModel.feed,
  };
  const loadHostile = () => hostileDetail;

  it('keeps hostile content inside 80x24 and never passes its escape sequences or bidi overrides through', () => {
    for (const state of Object.values(VIEWS)) {
      const frame = frameOf(hostileModel, 80, 24, { ...state, ...(state.detail ? { detail: { session: `S-${hostile}`, cursor: 0, findingKey: null } } : {}) }, loadHostile);
      expectFits(frame, 80, 24);
      expect(frame).not.toContain('\u001b[2J');
      expect(frame).not.toContain('\u001b[31mxxx');
      expect(frame).not.toMatch(/[\u202e\u2066]/);
    }
  });

  it('fits any terminal size, in every view', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8, max: 220 }),
        fc.integer({ min: 1, max: 70 }),
        fc.constantFrom(...Object.values(VIEWS)),
        fc.boolean(),
        (width, height, state, useHostile) => {
          const frame = useHostile
            ? frameOf(hostileModel, width, height, state.detail ? { detail: { session: 'S-x', cursor: 3, findingKey: null } } : state, loadHostile)
            : frameOf(fixtureModel(), width, height, state);
          expectFits(frame, width, height);
        },
      ),
      { numRuns: 60, seed: 20261109 },
    );
  });
});
