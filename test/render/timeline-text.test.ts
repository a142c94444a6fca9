import { describe, expect, it } from 'vitest';
import { renderTimelineText } from '../../src/render/timeline-text.js';
import type { LaneInfo, SessionTimeline, TimelineRecord } from '../../src/store/session-timeline.js';

// The text timeline of a session: one row per record, the lanes live at that moment drawn left of it.
// A soak test's session opens thousands of lanes one after another; its rows must stay as wide as
// the lanes live at once (they were as wide as every lane the session had, and a 400k-record
// session overflowed the stack measuring its rows).

const T0 = Date.parse('2026-11-09T10:00:00.000Z');
let line = 0;
const rec = (ms: number, kind: string, lane: string | null, f: Partial<TimelineRecord> = {}): TimelineRecord =>
  ({ id: ++line, file: 'soak.ndjson', line, ts_ms: T0 + ms, kind, origin: 'server', node: null, session: 'S', stream: lane, lane, ...f }) as TimelineRecord;
const laneInfo = (stream: string): LaneInfo =>
  ({ stream, lane: stream, via: 'get', opened_ts: null, closed_ts: null, close_reason: null, fenced_ts: null, superseded_ts: null });
const rows = (text: string) => text.split('\n').filter((l) => /^\d\d:\d\d:\d\d\.\d{3} /.test(l));
const gutterOf = (row: string) => /^([A-Z│ ]*?) (?=[a-z])/.exec(row.slice(13))![1]!;

describe('timeline text', () => {
  it('draws only the lanes live at each row, however many the session had', () => {
    line = 0;
    const records: TimelineRecord[] = [rec(0, 'session.created', null)];
    const lanes: LaneInfo[] = [];
    for (let k = 0; k < 200_000; k++) {
      const lane = `g${k}`;
      lanes.push(laneInfo(lane));
      records.push(rec(k * 10 + 1, 'stream.opened', lane, { via: 'get' }), rec(k * 10 + 2, 'stream.closed', lane));
    }
    const text = renderTimelineText({ session: 'S', incarnations: [], lanes, records } satisfies SessionTimeline);
    const all = rows(text);
    expect(all).toHaveLength(records.length);
    expect(Math.max(...all.slice(0, 1000).map((r) => gutterOf(r).length))).toBe(1);
    expect(all.at(-1)).toMatch(/ stream g199999 closed +soak\.ndjson:400001$/);
  });

  it('bars the other live lanes and marks the row’s own with its letter', () => {
    line = 0;
    const records = [
      rec(0, 'stream.opened', 'a'), rec(1, 'stream.opened', 'b'), rec(2, 'request.answered', null),
      rec(3, 'stream.closed', 'a'), rec(4, 'event.sent', 'b'), rec(5, 'stream.opened', 'c'), rec(6, 'stream.closed', 'b'), rec(7, 'stream.closed', 'c'),
    ];
    const text = renderTimelineText({ session: 'S', incarnations: [], lanes: ['a', 'b', 'c'].map(laneInfo), records });
    expect(text).toContain('    A a: a/get\n    B b: b/get\n    C c: c/get\n');
    // a and b live together; b keeps its column after a's ends, and c takes a's
    expect(rows(text).map(gutterOf)).toEqual(['A', '│B', '││', 'A│', ' B', 'C│', '│B', 'C']);
  });
});
