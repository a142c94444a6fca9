import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { FindingsFeed } from '../../src/tui/components/FindingsFeed.js';
import { Header } from '../../src/tui/components/Header.js';
import { findingLines } from '../../src/tui/components/SessionDetailView.js';
import type { FeedItem } from '../../src/tui/view-model.js';
import { fixtureModel } from './fixtures.js';
import { cells, frameLines } from './helpers.js';

// Terminal review 57: in a narrow terminal the dashboard cut what tells rows apart (session ids,
// rules, the line number of evidence) while free text kept its share; and at 80 columns a rotation
// notice with a long path pushed the loss of sessions (the incident signal) out of the header.

afterEach(() => cleanup());

const finding = (i: number): FeedItem => ({
  key: `k${i}`,
  rule: 'session-in-stateless-era',
  severity: 'error',
  session: `sess-${500 + i}`,
  at: `2026-11-09T10:00:0${i}.000Z`,
  message: 'a request arrived with a session id while the server ran stateless',
  evidence: [{ file: '/tmp/rv57/terminal/cases/sdk-3k.ndjson', line: 1234 + i, text: '{"kind":"request"}' }],
});
const ITEMS = [1, 2, 3, 4].map(finding);

function feedLines(width: number): string[] {
  return frameLines(render(<FindingsFeed items={ITEMS} selected={0} width={width} height={4} focused />).lastFrame());
}

describe('findings feed in a narrow pane', () => {
  it.each([60, 50, 40, 30])('at %i columns keeps every session id whole, and the rule', (width) => {
    const lines = feedLines(width);
    ITEMS.forEach((item, i) => {
      expect(cells(lines[i]!)).toBeLessThanOrEqual(width);
      expect(lines[i]).toContain(` ${item.session}`);
      expect(lines[i]).toMatch(/ session-in-\S+/);
    });
  });

  it('gives the message what is left after them (near miss: wide enough, the message is whole)', () => {
    expect(feedLines(50)[0]).toMatch(/sess-501 a request…$/);
    expect(feedLines(30)[0]).not.toContain('a request');
    expect(feedLines(120)[0]).toContain('10:00:01 ERR  session-in-stateless-era sess-501 a request arrived with a session id while the server ran stateless');
  });

  it('never overflows, down to one column', () => {
    for (const width of [1, 2, 5, 10, 20]) for (const line of feedLines(width)) expect(cells(line)).toBeLessThanOrEqual(width);
  });
});

describe('drill-down evidence in a narrow pane', () => {
  it('keeps the file name and line number of an evidence line, cutting the path from its start', () => {
    const rows = findingLines(ITEMS, 'k1', 10, 40).map((segs) => segs.map((s) => s.text).join(''));
    const evidence = rows.find((r) => r.includes('sdk-3k'))!;
    expect(evidence).toMatch(/^ {6}….*sdk-3k\.ndjson:1235/);
    expect(cells(evidence.split('  {')[0]!)).toBeLessThanOrEqual(40);
    // Wide enough, the whole path.
    expect(findingLines(ITEMS, 'k1', 10, 100).map((segs) => segs.map((s) => s.text).join(''))).toContain(
      '      /tmp/rv57/terminal/cases/sdk-3k.ndjson:1235  {"kind":"request"}',
    );
  });
});

describe('header at 80 columns', () => {
  // Within one second: shown as one time, not "10:00:24–10:00:24".
  const losses = [{ node: 'mcp-b', sessions: 2, from: '2026-11-09T10:00:24.100Z', until: '2026-11-09T10:00:24.900Z' }];
  const sourceEvents = [{ at: '2026-11-09T18:21:51Z', source: '/tmp/rv57/terminal/cases/pause.ndjson (rotated 1)', text: 'truncated, new file followed' }];
  const counts = (width: number, withLoss = true) =>
    frameLines(
      render(
        <Header {...fixtureModel()} mode="live" ratePerSec={0} {...(withLoss && { losses })} sourceEvents={sourceEvents} width={width} lines={2} />,
      ).lastFrame(),
    )[1]!;

  it('keeps the loss of sessions in view before a rotation notice', () => {
    const line = counts(80);
    expect(cells(line)).toBeLessThanOrEqual(80);
    expect(line).toMatch(/^records 12,345 .*⚠ mcp-b lost 2 sessions without a log line, 404s 10:00:24$/);
  });

  it('names the rotated file without its folders, and shows it when there is room (near miss: no loss)', () => {
    expect(counts(80, false)).toMatch(/↻ 18:21:51 pause\.ndjson \(rotated 1\) truncated/);
    const wide = counts(250);
    expect(wide).toMatch(/⚠ mcp-b lost 2 sessions.*↻ 18:21:51 pause\.ndjson \(rotated 1\) truncated, new file followed/);
    expect(wide).not.toContain('/tmp/rv57/terminal/cases/pause');
  });
});

describe('one-line header in a short, narrow terminal', () => {
  it('keeps the findings by severity before the counts of rejected and ignored lines', () => {
    const line = frameLines(render(<Header {...fixtureModel()} width={30} lines={1} />).lastFrame())[0]!;
    expect(cells(line)).toBeLessThanOrEqual(30);
    expect(line).toMatch(/^records 12,345 {2}critical 1/);
    // Near miss: with room, everything, in its order.
    expect(frameLines(render(<Header {...fixtureModel()} width={120} lines={1} />).lastFrame())[0]).toMatch(
      /^records 12,345 {2}rejected 3 {2}ignored 17 {2}critical 1 {2}error 3 {2}warning 1 {2}info 0$/,
    );
  });

  it('shows a pause first', () => {
    const line = frameLines(render(<Header {...fixtureModel()} mode="live" paused heldBack={4} width={60} lines={1} />).lastFrame())[0]!;
    expect(line).toMatch(/^⏸ paused, 4 new held back \(p resumes\) {2}records 12,345/);
  });
});
