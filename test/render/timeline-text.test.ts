import { describe, expect, it } from 'vitest';
import { timelineJsonChunks } from '../../src/render/timeline-json.js';
import { describeRecord, renderTimelineText } from '../../src/render/timeline-text.js';
import type { IncarnationInfo, LaneInfo, SessionTimeline, TimelineRecord } from '../../src/store/session-timeline.js';

// The text timeline of a session: one row per record, the lanes live at that moment drawn left of it.
// A soak test's session opens thousands of lanes one after another; its rows must stay as wide as
// the lanes live at once (they were as wide as every lane the session had, and a 400k-record
// session overflowed the stack measuring its rows).

const T0 = Date.parse('2026-11-09T10:00:00.000Z');
let line = 0;
const rec = (ms: number, kind: string, lane: string | null, f: Partial<TimelineRecord> = {}): TimelineRecord =>
  ({ id: ++line, file: 'soak.ndjson', line, ts_ms: T0 + ms, kind, origin: 'server', node: null, session: 'S', stream: lane, lane, ...f }) as TimelineRecord;
const laneInfo = (stream: string, f: Partial<LaneInfo> = {}): LaneInfo => ({
  stream, lane: stream, via: 'get', opened_ts: null, closed_ts: null, close_reason: null, fenced_ts: null, superseded_ts: null,
  superseded_id: null, superseded_file: null, superseded_line: null, superseded_by_stream: null, superseded_while_open: null, ...f,
});
const rows = (text: string) => text.split('\n').filter((l) => /^\d\d:\d\d:\d\d\.\d{3} /.test(l));
const gutterOf = (row: string) => /^([A-Z│ ]*?) (?=[a-z])/.exec(row.slice(13))![1]!;

describe('timeline text', () => {
  it('names each row\'s node where the session spans several, and none where one node logged it all', () => {
    line = 0;
    const lanes = [laneInfo('g1'), laneInfo('g2', { lane: 'g1' })];
    const two = [rec(0, 'stream.opened', 'g1', { node: 'mcp-a', via: 'get' }), rec(5000, 'stream.opened', 'g1', { stream: 'g2', node: 'mcp-b', via: 'get' })];
    const spread = rows(renderTimelineText({ session: 'S', incarnations: [], lanes, records: two } satisfies SessionTimeline));
    expect(spread[0]).toMatch(/ \[mcp-a\] stream g1 opened via get /);
    expect(spread[1]).toMatch(/ \[mcp-b\] stream g2 opened via get /);
    const one = two.map((r) => ({ ...r, node: 'mcp-a' }));
    expect(rows(renderTimelineText({ session: 'S', incarnations: [], lanes, records: one } satisfies SessionTimeline)).join('\n')).not.toContain('[mcp-a]');
  });

  it('keys a lane in the order of its upgrades, not of logged times: a resumption logged before the stream it resumes', () => {
    line = 0;
    // g2 (node behind) logged opened before g1; the upgrade that opened g2 superseded g1
    const lanes = [laneInfo('g2', { lane: 'g1', opened_ts: T0 }), laneInfo('g1', { opened_ts: T0 + 700, superseded_by_stream: 'g2', superseded_ts: T0 })];
    const text = renderTimelineText({ session: 'S', incarnations: [], lanes, records: [] } satisfies SessionTimeline);
    expect(text).toContain('A g1: g1/get → g2/get');
    // near miss: no upgrade links them: as logged
    const unlinked = [laneInfo('g2', { lane: 'g1' }), laneInfo('g1')];
    expect(renderTimelineText({ session: 'S', incarnations: [], lanes: unlinked, records: [] } satisfies SessionTimeline)).toContain('A g1: g2/get → g1/get');
  });

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
    const text = renderTimelineText({ session: 'S', incarnations: [], lanes: ['a', 'b', 'c'].map((l) => laneInfo(l)), records });
    expect(text).toContain('    A a: a/get\n    B b: b/get\n    C c: c/get\n');
    // a and b live together; b keeps its column after a's ends, and c takes a's
    expect(rows(text).map(gutterOf)).toEqual(['A', '│B', '││', 'A│', ' B', 'C│', '│B', 'C']);
  });

  it('names the UTC day above the first row and again at every row on another day', () => {
    line = 0;
    const at = (iso: string, kind: string) => rec(Date.parse(iso) - T0, kind, null);
    const records = [
      at('2026-11-09T23:59:40.000Z', 'session.created'),
      at('2026-11-10T00:01:01.000Z', 'upgrade'),
      at('2026-11-11T00:01:01.000Z', 'upgrade'),
    ];
    const text = renderTimelineText({ session: 'S', incarnations: [], lanes: [], records });
    const story = text.slice(text.indexOf('── '));
    expect(story.split('\n').map((l) => l.slice(0, 24))).toEqual([
      '── 2026-11-09 (UTC) ──', '23:59:40.000   session c',
      '── 2026-11-10 (UTC) ──', '00:01:01.000   UPGRADE (',
      '── 2026-11-11 (UTC) ──', '00:01:01.000   UPGRADE (', '',
    ]);
  });

  it('names the day once for a session within one UTC day, from its first to its last millisecond', () => {
    line = 0;
    const at = (iso: string) => rec(Date.parse(iso) - T0, 'session.created', null);
    const text = renderTimelineText({ session: 'S', incarnations: [], lanes: [], records: [at('2026-11-09T00:00:00.000Z'), at('2026-11-09T23:59:59.999Z')] });
    expect(text.match(/^── .*$/gm)).toEqual(['── 2026-11-09 (UTC) ──']);
    expect(rows(text)).toHaveLength(2);
  });

  it('marks an event that carries a response as the response to its call', () => {
    const sent = rec(0, 'event.sent', 'get-4', { event_id: 'e7', rpc_kind: 'response', rpc_id: '3' });
    expect(describeRecord(sent)).toBe('event e7 sent on get-4: response to 3');
    expect(describeRecord({ ...sent, kind: 'event.replayed' })).toBe('event e7 replayed on get-4: response to 3');
  });

  it('leaves a request event its method, and an event of no stated kind unmarked, whatever rpc id they carry', () => {
    const request = rec(0, 'event.sent', 'g1', { event_id: 'e8', rpc_kind: 'request', rpc_id: '3', method: 'sampling/createMessage' });
    expect(describeRecord(request)).toBe('event e8 sent on g1: sampling/createMessage');
    expect(describeRecord(rec(0, 'event.sent', 'g1', { event_id: 'e9', rpc_id: '3' }))).toBe('event e9 sent on g1');
  });

  it('marks a priming event as priming', () => {
    expect(describeRecord(rec(0, 'event.sent', 'p1', { event_id: 'p1-0', priming: 1 }))).toBe('priming event p1-0 sent on p1');
  });

  it('names the session’s revision in its header, and a row of another revision at its end', () => {
    line = 0;
    const records = [
      rec(0, 'upgrade', null, { decision: 'fresh', status: 200, new_session: 'S', protocol_version: '2026-07-28' }),
      rec(1, 'session.created', null, { protocol_version: '2025-11-25' }),
      rec(2, 'stream.opened', 'g1', { via: 'get' }),
      rec(3, 'upgrade', 'g1', { new_stream: 'g2', decision: 'resume', status: 200, protocol_version: '2026-07-28' }),
      rec(4, 'stream.closed', 'g1', { protocol_version: '2025-11-25' }),
    ];
    const t = { session: 'S', protocol_version: '2025-11-25', incarnations: [], lanes: [laneInfo('g1')], records };
    const text = renderTimelineText(t);
    expect(text.split('\n')[0]).toBe('session S (protocol 2025-11-25)');
    expect(rows(text).map((r) => / \[protocol [^\]]+\]/.exec(r)?.[0] ?? '')).toEqual([' [protocol 2026-07-28]', '', '', ' [protocol 2026-07-28]', '']);
    expect(JSON.parse(Array.from(timelineJsonChunks(t)).join(''))).toMatchObject({ session: 'S', protocol_version: '2025-11-25' });
    // a session that logs no revision of its own: its header names none, every row that logs one says it
    const none = renderTimelineText({ ...t, protocol_version: undefined });
    expect(none.split('\n')[0]).toBe('session S');
    expect(rows(none).filter((r) => r.includes('[protocol '))).toHaveLength(4);
  });

  describe('a principal', () => {
    const incarnation = (ms: number, owner: string): IncarnationInfo =>
      ({ created_ts: T0 + ms, incarnation: null, node: null, owner, ended_ts: null, ended_how: null });
    const story = () => {
      line = 0;
      const records = [
        rec(0, 'session.created', null, { principal: 'tok:erin' }),
        rec(1, 'upgrade', 'U1', { new_stream: 'U2', decision: 'resume', status: 200, principal: 'tok:erin' }),
        rec(2, 'upgrade', 'U1', { new_stream: 'U3', decision: 'resume', status: 200, principal: 'tok:mallory' }),
        rec(3, 'session.created', null, { principal: 'tok:mallory' }),
        rec(4, 'stream.opened', 'U4', { via: 'get', principal: 'tok:mallory' }),
      ];
      return { session: 'S', incarnations: [incarnation(0, 'tok:erin'), incarnation(3, 'tok:mallory')], lanes: [], records };
    };

    it('is named on a row where it is not the owner of the incarnation live then', () => {
      const text = renderTimelineText(story());
      expect(rows(text)[2]).toMatch(/→ U3 by tok:mallory, not the owner tok:erin +soak\.ndjson:3$/);
      const json = JSON.parse(Array.from(timelineJsonChunks(story())).join(''));
      expect(json.records[2]).toMatchObject({ principal: 'tok:mallory', owner: 'tok:erin' });
    });

    it('is not named where it is the owner, nor against an earlier incarnation’s owner', () => {
      const all = rows(renderTimelineText(story()));
      expect(all[1]).not.toContain(' by ');
      expect(all[4]).toMatch(/stream U4 opened via get +soak\.ndjson:5$/);
      const json = JSON.parse(Array.from(timelineJsonChunks(story())).join(''));
      expect(json.records[4]).toMatchObject({ principal: 'tok:mallory', owner: 'tok:mallory' });
    });

    it('is not set against an ended incarnation’s owner, nor on the answer that minted the session', () => {
      line = 0;
      const records = [
        rec(0, 'upgrade', null, { decision: 'fresh', status: 200, new_session: 'S', principal: 'tok:bob' }),
        rec(1, 'session.created', null, { principal: 'tok:bob' }),
        rec(5, 'stream.opened', 'U9', { via: 'get', principal: 'tok:mallory' }),
      ];
      const ended = { ...incarnation(-10, 'tok:erin'), ended_ts: T0 - 5, ended_how: 'evicted' };
      const all = rows(renderTimelineText({ session: 'S', incarnations: [ended, incarnation(1, 'tok:bob')], lanes: [], records }));
      // erin's incarnation had ended: the answer minting bob's is bob's own, not "not the owner tok:erin"
      expect(all[0]).not.toContain(' by ');
      expect(all[2]).toContain('by tok:mallory, not the owner tok:bob');
    });

    it('is named on every row that carries one when the session’s creation is not in the log', () => {
      line = 0;
      const records = [rec(0, 'stream.opened', 'U1', { via: 'get', principal: 'tok:erin' })];
      expect(rows(renderTimelineText({ session: 'S', incarnations: [], lanes: [], records }))[0]).toContain('opened via get by tok:erin ');
      expect(JSON.parse(Array.from(timelineJsonChunks({ session: 'S', incarnations: [], lanes: [], records })).join('')).records[0]).not.toHaveProperty('owner');
    });
  });

  describe('a stream superseded', () => {
    const key = (u1: Partial<LaneInfo>) => {
      const lanes = [laneInfo('U1', u1), laneInfo('U2', { lane: 'U1' })];
      return /^ {4}A U1: (.*)$/m.exec(renderTimelineText({ session: 'S', incarnations: [], lanes, records: [] }))![1];
    };
    const by = { superseded_ts: T0 + 2000, superseded_id: 13, superseded_file: 'w.ndjson', superseded_line: 13, superseded_by_stream: 'U2' };

    it('while still open names the upgrade that superseded it, when, and how it ended after', () => {
      expect(key({ ...by, superseded_while_open: true, closed_ts: T0 + 92_000, close_reason: 'half_open' })).toBe(
        'U1/get (superseded while open at 2026-11-09T10:00:02.000Z by the upgrade to U2, w.ndjson:13; then closed: half_open) → U2/get',
      );
      expect(key({ ...by, superseded_while_open: true })).toBe(
        'U1/get (superseded while open at 2026-11-09T10:00:02.000Z by the upgrade to U2, w.ndjson:13; never closed) → U2/get',
      );
    });

    it('after it closed is an ordinary resumption: the key says how it closed, nothing more', () => {
      expect(key({ ...by, superseded_while_open: false, closed_ts: T0 + 1000, close_reason: 'error' })).toBe('U1/get (closed: error) → U2/get');
    });
  });
});
