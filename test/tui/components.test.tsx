import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { Charts } from '../../src/tui/components/Charts.js';
import { FindingsFeed } from '../../src/tui/components/FindingsFeed.js';
import { Header } from '../../src/tui/components/Header.js';
import { HelpOverlay } from '../../src/tui/components/HelpOverlay.js';
import { SessionDetailView } from '../../src/tui/components/SessionDetailView.js';
import { SessionsTable } from '../../src/tui/components/SessionsTable.js';
import { StatusBar } from '../../src/tui/components/StatusBar.js';
import { KEY_HELP } from '../../src/tui/keymap.js';
import { orderFeed } from '../../src/tui/selectors.js';
import { DETAIL_B21E90, EMPTY_SERIES, FEED, SERIES, SESSIONS, fixtureModel } from './fixtures.js';
import { cells, frameLines, plain } from './helpers.js';

afterEach(() => cleanup());

describe('Header', () => {
  it('shows records, rate, rejected and ignored lines, findings by severity and the sources', () => {
    const m = fixtureModel({ mode: 'live', ratePerSec: 42.4 });
    const { lastFrame } = render(<Header {...m} width={100} lines={2} />);
    const [title, counts] = frameLines(lastFrame());
    expect(title).toContain('● live');
    expect(title).toMatch(/critical 1\s+error 3\s+warning 1\s+info 0/);
    expect(counts).toContain('records 12,345');
    expect(counts).toContain('42/s');
    expect(counts).toContain('rejected 3');
    expect(counts).toContain('ignored 17');
    expect(counts).toContain('server-a.ndjson, server-b.ndjson, proxy.ndjson');
  });

  it('keeps the counts on one line when only one is available, within the width', () => {
    const m = fixtureModel();
    const lines = frameLines(render(<Header {...m} width={60} lines={1} />).lastFrame());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('records 12,345');
    expect(cells(lines[0] as string)).toBeLessThanOrEqual(60);
  });
});

describe('FindingsFeed', () => {
  const items = orderFeed(FEED);

  it('shows rule, session and message per finding, in the order given, and marks the selection', () => {
    const lines = frameLines(render(<FindingsFeed items={items} selected={1} width={120} height={10} focused />).lastFrame());
    expect(lines[0]).toMatch(/10:00:07 CRIT cross-principal-replay\s+S-b21e90 bob was replayed alice's events/);
    expect(lines[1]).toMatch(/^› 10:00:06 ERR\s+dual-writer\s+S-b21e90 attach superseded g1/);
    expect(lines[0]?.startsWith('› ')).toBe(false);
    // A finding without a session says so rather than leaving a gap.
    expect(lines[4]).toMatch(/event-id-without-session\s+—\s+Last-Event-ID 5/);
  });

  it('truncates rows to the width and scrolls to keep the selection in view', () => {
    const lines = frameLines(render(<FindingsFeed items={items} selected={4} width={50} height={2} focused />).lastFrame());
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(cells(line)).toBeLessThanOrEqual(50);
    expect(lines[1]).toMatch(/^› .*event-id-wit/);
    expect(plain(lines.join('\n'))).toContain('…');
  });

  it('says so when there are no findings', () => {
    expect(plain(render(<FindingsFeed items={[]} selected={0} width={40} height={5} focused />).lastFrame())).toContain('no findings');
  });
});

describe('SessionsTable', () => {
  const props = {
    rows: SESSIONS,
    total: SESSIONS.length,
    selected: 0,
    sort: { column: 'findings', descending: true },
    filter: '',
    draft: null,
    width: 80,
    height: 10,
    focused: true,
  } as const;

  it('shows state, streams, the last decision triple and the counters of each session', () => {
    const text = plain(render(<SessionsTable {...props} />).lastFrame());
    expect(text).toMatch(/S-7f3a1c\s+live\s+2 1204 → resume 200\s+4\s+0\s+1 10:00:09/);
    expect(text).toMatch(/S-b21e90\s+ended\s+3 ∅ → attach 200\s+0\s+2\s+2/);
    expect(text).toMatch(/S-c4d5e6\s+forked\s+1 88 → reject 409/);
    expect(text).toMatch(/S-0a9f12\s+unknown\s+0 —/);
  });

  it('names a session a node lost without a log line `lost`', () => {
    const rows = [{ ...SESSIONS[0]!, session: 'S-10571a', state: 'lost' as const }, ...SESSIONS.slice(1)];
    expect(plain(render(<SessionsTable {...props} rows={rows} />).lastFrame())).toMatch(/S-10571a\s+lost\s+2 1204 → resume 200/);
  });

  it('marks the sort column and direction in the header', () => {
    const lines = frameLines(render(<SessionsTable {...props} />).lastFrame());
    expect(lines[0]).toContain('sort: findings ▼');
    expect(lines[1]).toMatch(/find▼/);
    const ascending = frameLines(render(<SessionsTable {...props} sort={{ column: 'session', descending: false }} />).lastFrame());
    expect(ascending[1]).toMatch(/session▲/);
    expect(ascending[1]).not.toMatch(/find▼/);
  });

  it('shows the applied filter with the match count, and the one being typed', () => {
    const applied = plain(render(<SessionsTable {...props} rows={SESSIONS.slice(1, 2)} filter="b21" />).lastFrame());
    expect(applied).toContain('filter: b21  1 of 4 sessions');
    const typing = plain(render(<SessionsTable {...props} rows={[]} draft="zz" />).lastFrame());
    expect(typing).toContain('filter: zz▏');
    expect(typing).toContain('no session matches "zz"');
  });

  it('drops the least important columns on a narrow pane instead of overflowing', () => {
    const lines = frameLines(render(<SessionsTable {...props} width={40} />).lastFrame());
    for (const line of lines) expect(cells(line)).toBeLessThanOrEqual(40);
    expect(lines[1]).toContain('session');
    expect(lines[1]).not.toContain('seen');
  });
});

describe('Charts', () => {
  it('draws decisions, replayed vs re-emitted and 404s with their totals', () => {
    const text = plain(render(<Charts series={SERIES} width={80} height={18} />).lastFrame());
    // At 80 columns the decisions legend leaves out the time span, which the other charts show.
    expect(text).toMatch(/decisions\s+── resume 29\s+━━ attach 9\s+══ fresh 3\s+┄┄ reject 8\n/);
    expect(text).toMatch(/replayed vs re-emitted\s+── replayed 123\s+══ re-emitted 6\s+10:00:00 → 10:00:55/);
    expect(text).toMatch(/404s\s+── 404 11/);
    // Counts get whole-number ticks, the top one at or just above the busiest interval (7 404s).
    const ticks = [...text.matchAll(/(-?[\d.]+) [┼┤]/g)].map((m) => m[1] as string);
    expect(ticks.length).toBeGreaterThan(6);
    for (const t of ticks) expect(t).toMatch(/^\d+$/);
    expect(text).toMatch(/ 8 ┤/);
    expect(text).not.toContain('.0 ');
  });

  it('fits the given width and height, summing intervals when there are more than columns', () => {
    const long = {
      ...SERIES,
      labels: Array.from({ length: 500 }, (_, i) => `2026-11-09T10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:00Z`),
      http404: Array.from({ length: 500 }, (_, i) => (i === 250 ? 9 : 0)),
    };
    const lines = frameLines(render(<Charts series={long} width={60} height={9} />).lastFrame());
    expect(lines.length).toBeLessThanOrEqual(9);
    for (const line of lines) expect(cells(line)).toBeLessThanOrEqual(60);
    // Summed, not sampled: the lone burst survives the squeeze.
    expect(plain(lines.join('\n'))).toMatch(/── 404 9/);
    expect(plain(lines.join('\n'))).toMatch(/ 9 [┤┼]/);
  });

  it('degrades to one "no data yet" line without data', () => {
    const lines = frameLines(render(<Charts series={EMPTY_SERIES} width={80} height={18} />).lastFrame());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('no data yet');
  });

  it('falls back to a one-line digest when too short for a chart', () => {
    const lines = frameLines(render(<Charts series={SERIES} width={120} height={2} />).lastFrame());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/decisions: resume 29 attach 9 fresh 3 reject 8\s+replayed vs re-emitted: replayed 123/);
  });
});

describe('SessionDetailView', () => {
  it('shows one column per stream lane, every row with its file:line, and the findings with evidence', () => {
    const lines = frameLines(render(<SessionDetailView detail={DETAIL_B21E90} cursor={0} findingKey={null} width={100} height={22} />).lastFrame());
    expect(lines[0]).toContain('session S-b21e90');
    expect(lines[0]).toContain('incarnation i-41');
    expect(lines[1]).toMatch(/time\s+g1 \(get\) superseded\s*│g2 \(get\) closed\s*│p7 \(post\) closed/);
    const laneStart = (name: string) => (lines[1] as string).indexOf(name);
    const rowOf = (ref: string) => lines.find((l) => l.endsWith(ref)) as string;
    // Each record sits in its own stream's column.
    expect(rowOf('server-b.ndjson:12').indexOf('opened via get')).toBe(laneStart('g1 (get)'));
    expect(rowOf('server-b.ndjson:44').indexOf('opened via post')).toBe(laneStart('p7 (post)'));
    expect(rowOf('server-b.ndjson:80').indexOf('upgrade ∅ → attach')).toBe(laneStart('g2 (get)'));
    // Session-level records span the lanes.
    expect(rowOf('server-b.ndjson:95')).toContain('session.terminated client_delete');
    for (const row of DETAIL_B21E90.rows) expect(lines.some((l) => l.endsWith(`${row.ref.file}:${row.ref.line}`))).toBe(true);
    const text = lines.join('\n');
    expect(text).toContain('findings (2)');
    expect(text).toMatch(/ERR\s+dual-writer\s+attach superseded g1/);
    expect(text).toContain('server-b.ndjson:80  {"kind":"upgrade","new_stream":"g2","decision":"attach"}');
  });

  it('scrolls the timeline and keeps the findings in view when short of height', () => {
    const lines = frameLines(render(<SessionDetailView detail={DETAIL_B21E90} cursor={4} findingKey={null} width={80} height={10} />).lastFrame());
    expect(lines).toHaveLength(10);
    expect(lines[0]).toContain('rows 3–6 of 7');
    expect(lines.some((l) => l.endsWith('server-b.ndjson:10'))).toBe(false);
    expect(lines.join('\n')).toContain('findings (2)');
    expect(lines.join('\n')).toMatch(/↓ \d+ below/);
    // A stale scroll past the end shows the last page rather than blank rows.
    const clamped = frameLines(render(<SessionDetailView detail={DETAIL_B21E90} cursor={99} findingKey={null} width={80} height={10} />).lastFrame());
    expect(clamped[0]).toContain('rows 4–7 of 7');
  });

  it('tags rows of lanes that have no column of their own', () => {
    const many = {
      ...DETAIL_B21E90,
      lanes: Array.from({ length: 8 }, (_, i) => ({ stream: `g${i + 1}`, via: 'get', state: 'closed' })),
      rows: [{ at: '2026-11-09T10:00:00Z', lane: 'g8', kind: 'event.sent', text: 'id 9', ref: { file: 'a.ndjson', line: 9 } }],
      findings: [],
    };
    const lines = frameLines(render(<SessionDetailView detail={many} cursor={0} findingKey={null} width={80} height={6} />).lastFrame());
    expect(lines[0]).toMatch(/8 streams \(\d in the last column\)/);
    expect(lines[2]).toContain('[g8] sent id 9');
    for (const line of lines) expect(cells(line)).toBeLessThanOrEqual(80);
  });
});

describe('HelpOverlay and StatusBar', () => {
  it('lists every key', () => {
    const text = plain(render(<HelpOverlay width={100} height={30} />).lastFrame());
    for (const k of KEY_HELP) expect(text).toContain(k.keys);
  });

  it('shows the notice before the hints for the current mode', () => {
    const text = plain(render(<StatusBar mode="filter" notice="nothing to open" width={100} />).lastFrame());
    expect(text).toMatch(/^nothing to open\s+type to filter sessions · enter apply · esc cancel/);
  });
});
