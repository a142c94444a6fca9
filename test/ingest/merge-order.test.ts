import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { at } from '../helpers/logs.js';
import { T0, ingestFiles, rows } from './support.js';

// log-format.md "Time order": records are ordered by ts, ties keep file
// order; within one node, `seq` orders records whose times tie.

/** The timeline as every query reads it: by time, then by stored order. */
function timeline(db: Db): string[] {
  return rows<{ name: string; line: number }>(db, 'SELECT s.name, r.line FROM records r JOIN sources s ON s.id = r.source_id ORDER BY r.ts_ms, r.id').map(
    (r) => `${r.name}:${r.line}`,
  );
}

const created = (ts: string | number, session: string, extra: Record<string, unknown> = {}) => ({ ts, kind: 'session.created', session, ...extra });

describe('merge by time', () => {
  it('interleaves two files by time; ties keep file order', async () => {
    const { db } = await ingestFiles({
      'a.ndjson': [created(at(0), 'A1'), created(at(20), 'A2'), created(at(20), 'A3'), created(at(40), 'A4')],
      'b.ndjson': [created(at(10), 'B1'), created(at(20), 'B2'), created(at(30), 'B3')],
    });
    expect(timeline(db)).toEqual(['a.ndjson:1', 'b.ndjson:1', 'a.ndjson:2', 'a.ndjson:3', 'b.ndjson:2', 'b.ndjson:3', 'a.ndjson:4']);
  });

  it('ties keep the order the files were given in, whatever their names', async () => {
    const { db } = await ingestFiles({ 'z.ndjson': [created(T0, 'Z')], 'a.ndjson': [created(T0, 'A')] });
    expect(timeline(db)).toEqual(['z.ndjson:1', 'a.ndjson:1']);
  });

  it('a file whose lines are out of time order is read in time order', async () => {
    const { db } = await ingestFiles({ 'a.ndjson': [created(at(30), 'S3'), created(at(10), 'S1'), created(at(20), 'S2')] });
    expect(timeline(db)).toEqual(['a.ndjson:2', 'a.ndjson:3', 'a.ndjson:1']);
  });

  it('ties across files are not reordered by seq', async () => {
    const { db } = await ingestFiles({ 'a.ndjson': [created(T0, 'A', { seq: 9 })], 'b.ndjson': [created(T0, 'B', { seq: 1 })] });
    expect(timeline(db)).toEqual(['a.ndjson:1', 'b.ndjson:1']);
  });

  it('the derived event order follows the merged timeline', async () => {
    const { db } = await ingestFiles({
      'n1.ndjson': [
        { ts: at(0), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', node: 'n1' },
        { ts: at(5), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1, node: 'n1' },
        { ts: at(20), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 3, node: 'n1' },
      ],
      'n2.ndjson': [
        { ts: at(5), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 2, node: 'n2' },
        { ts: at(30), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 4, node: 'n2' },
      ],
    });
    expect(rows(db, 'SELECT event_id, lane_pos FROM events ORDER BY lane_pos')).toEqual(
      ['1', '2', '3', '4'].map((event_id, i) => ({ event_id, lane_pos: i + 1 })),
    );
  });
});

describe('seq within a tie', () => {
  const sent = (id: number, seq?: number, node = 'n1') => ({ ts: T0, kind: 'event.sent', session: 'S1', stream: 'g1', event_id: id, node, ...(seq !== undefined && { seq }) });

  it('orders a group of equal times by seq', async () => {
    const { db } = await ingestFiles({ 'a.ndjson': [sent(30, 3), sent(10, 1), sent(20, 2)] });
    expect(rows(db, 'SELECT event_id FROM records ORDER BY ts_ms, id')).toEqual([{ event_id: '10' }, { event_id: '20' }, { event_id: '30' }]);
    expect(rows(db, 'SELECT event_id, lane_pos FROM events ORDER BY lane_pos')).toEqual([
      { event_id: '10', lane_pos: 1 },
      { event_id: '20', lane_pos: 2 },
      { event_id: '30', lane_pos: 3 },
    ]);
  });

  it('does not move records across different times', async () => {
    const { db } = await ingestFiles({
      'a.ndjson': [{ ...sent(1, 9), ts: at(0) }, { ...sent(2, 1), ts: at(1) }],
    });
    expect(rows(db, 'SELECT event_id FROM records ORDER BY ts_ms, id')).toEqual([{ event_id: '1' }, { event_id: '2' }]);
  });

  it('orders each node by its own counter', async () => {
    const { db } = await ingestFiles({ 'a.ndjson': [sent(12, 2, 'n1'), sent(22, 7, 'n2'), sent(11, 1, 'n1'), sent(21, 6, 'n2')] });
    const order = (node: string) => rows<{ event_id: string }>(db, 'SELECT event_id FROM records WHERE node = ? ORDER BY ts_ms, id', node).map((r) => r.event_id);
    expect([order('n1'), order('n2')]).toEqual([
      ['11', '12'],
      ['21', '22'],
    ]);
  });

  it('still orders a node by seq when records without seq share the tie', async () => {
    const http = { ts: T0, kind: 'http', method: 'GET', path: '/health', status: 200, req_headers: {}, resp_headers: {} };
    const { db } = await ingestFiles({ 'a.ndjson': [sent(30, 3), http, sent(10, 1), sent(20, 2)] });
    expect(rows(db, "SELECT event_id FROM records WHERE kind = 'event.sent' ORDER BY ts_ms, id")).toEqual([
      { event_id: '10' },
      { event_id: '20' },
      { event_id: '30' },
    ]);
  });
});
