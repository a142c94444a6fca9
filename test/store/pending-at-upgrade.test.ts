import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../bench/generate.js';
import { loadWorkspace } from '../../src/api.js';
import { expandPaths } from '../../src/read/sources.js';
import type { Db } from '../../src/store/db.js';
import { deriveTimeline } from '../../src/store/derive.js';
import { walkPendingAtReconnects } from '../../src/detect/facts/pending-at-reconnects.js';
import { DEFAULT_DETECT_OPTIONS } from '../../src/detect/types.js';
import { at } from '../helpers/logs.js';

// pending_at_upgrade (store/views.ts) is read request by request: each request's life holds the upgrades
// it is pending at. It must give the rows of the definition read upgrade by upgrade (every request of the
// session sent before it, in its incarnation, unresolved then), which is kept here as the reference.

const BY_UPGRADE = `
WITH accepted AS (
  SELECT u.id, u.ts_ms, u.session,
    (SELECT i.created_id FROM incarnations i WHERE i.session = u.session AND (i.created_ts, i.created_id) < (u.ts_ms, u.id)
     ORDER BY i.created_ts DESC, i.created_id DESC LIMIT 1) AS created_id
  FROM upgrades u WHERE u.decision IN ('resume', 'attach') AND u.status BETWEEN 200 AND 299 AND u.session IS NOT NULL)
SELECT a.id AS upgrade_id, a.created_id, q.session, q.sent_id, q.sent_ts, q.request_id, q.method, q.stream, q.event_id
FROM accepted a
JOIN requests q ON q.session = a.session AND (q.sent_ts, q.sent_id) < (a.ts_ms, a.id)
LEFT JOIN incarnations i ON i.created_id = a.created_id
LEFT JOIN records ans ON ans.id = q.answered_id LEFT JOIN records can ON can.id = q.cancelled_id
LEFT JOIN records reis ON reis.id = q.reissued_id LEFT JOIN records tmo ON tmo.id = q.timed_out_id
WHERE (i.created_id IS NULL OR (q.sent_ts, q.sent_id) > (i.created_ts, i.created_id))
  AND (ans.id IS NULL OR (ans.ts_ms, ans.id) > (a.ts_ms, a.id)) AND (can.id IS NULL OR (can.ts_ms, can.id) > (a.ts_ms, a.id))
  AND (reis.id IS NULL OR (reis.ts_ms, reis.id) > (a.ts_ms, a.id)) AND (tmo.id IS NULL OR (tmo.ts_ms, tmo.id) > (a.ts_ms, a.id))`;

const ORDER = 'ORDER BY upgrade_id, sent_id';

const s = (ms: number, kind: string, f: Record<string, unknown> = {}) => JSON.stringify({ ts: at(ms), kind, session: 'E', ...f });
const sentQ = (ms: number, id: string) => s(ms, 'request.sent', { stream: 'g1', request_id: id, method: 'sampling/createMessage' });
const attach = (ms: number, next: string) => s(ms, 'upgrade', { new_stream: next, decision: 'attach', status: 200, reemitted: 0, cancelled: 0 });
// Each way a request stops being pending, some at the very millisecond of an upgrade (logged just before or after it),
// and a second incarnation of the same session id.
const EDGES = [
  s(0, 'session.created'), s(1, 'stream.opened', { stream: 'g1', via: 'get' }),
  sentQ(10, 'r1'), sentQ(11, 'r2'), sentQ(12, 'r3'), sentQ(13, 'r4'), sentQ(14, 'r5'),
  s(20, 'request.answered', { request_id: 'r1', status: 200 }), attach(20, 'g2'),
  attach(30, 'g3'), s(30, 'request.cancelled', { request_id: 'r2' }),
  s(40, 'request.reissued', { request_id: 'r3', new_request_id: 'r3b', stream: 'g3' }), s(41, 'request.timed_out', { request_id: 'r4' }),
  s(42, 'request.answered', { request_id: 'r5', status: 404 }), attach(50, 'g4'),
  s(60, 'session.terminated'), s(70, 'session.created'), sentQ(71, 'r6'), attach(80, 'g5'), s(90, 'request.answered', { request_id: 'r6', status: 200 }), attach(95, 'g6'),
].join('\n');

describe('pending_at_upgrade', () => {
  let dir: string;
  let db: Db;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pending-at-upgrade-'));
    const files = ['bad-server', 'long-sessions', 'production'].map((shape) => join(dir, `${shape}.ndjson`));
    await Promise.all(files.map((f, i) => generate(f, 15_000, { shape: ['bad-server', 'long-sessions', 'production'][i]!, seed: 4 })));
    writeFileSync(join(dir, 'edges.ndjson'), EDGES + '\n');
    // The same session as a file written out of time order: record ids do not follow the times.
    writeFileSync(join(dir, 'edges-backwards.ndjson'), EDGES.replaceAll('"session":"E"', '"session":"F"').split('\n').reverse().join('\n') + '\n');
    db = (await loadWorkspace(expandPaths([...files, join(dir, 'edges.ndjson'), join(dir, 'edges-backwards.ndjson')]))).db;
    deriveTimeline(db);
  }, 60_000);
  afterAll(() => {
    db?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('gives the rows of the definition read upgrade by upgrade', () => {
    const view = db.prepare(`SELECT * FROM pending_at_upgrade ${ORDER}`).all();
    expect(view.length).toBeGreaterThan(100);
    expect(view).toEqual(db.prepare(`${BY_UPGRADE} ${ORDER}`).all());
  });

  it('ends a request at its 2xx answer, cancel, re-issue or time-out, and at a new incarnation', () => {
    const rows = db.prepare(`SELECT u.ts_ms - ${Date.parse(at(0))} AS at, group_concat(p.request_id, ' ' ORDER BY p.sent_id) AS pending
      FROM pending_at_upgrade p JOIN records u ON u.id = p.upgrade_id WHERE p.session = 'E' GROUP BY u.id ORDER BY u.id`).all();
    expect(rows).toEqual([
      { at: 20, pending: 'r2 r3 r4 r5' }, // r1's answer was logged just before the attach
      { at: 30, pending: 'r2 r3 r4 r5' }, // r2's cancel just after it
      { at: 50, pending: 'r5 r3b' }, // a 404 answer leaves r5 pending; r3 re-issued as r3b
      { at: 80, pending: 'r6' }, // the first incarnation's requests are not the second's
    ]);
  });

  it('is what the rules walk holds at each reconnect, in the order sent', () => {
    const view = db.prepare(`SELECT upgrade_id, sent_id FROM pending_at_upgrade ORDER BY upgrade_id, sent_ts, sent_id`).all() as { upgrade_id: number; sent_id: number }[];
    const walked: { upgrade_id: number; sent_id: number }[] = [];
    let reconnects = 0;
    walkPendingAtReconnects(db, DEFAULT_DETECT_OPTIONS, (r, pending) => {
      reconnects++;
      for (const q of pending.values()) walked.push({ upgrade_id: r.id, sent_id: q.sentId });
    });
    walked.sort((a, b) => a.upgrade_id - b.upgrade_id);
    expect(reconnects).toBeGreaterThan(100);
    expect(walked).toEqual(view);
    expect(view.some((p) => p.upgrade_id === (db.prepare(`SELECT max(id) AS id FROM records WHERE session = 'F' AND kind = 'upgrade'`).get() as { id: number }).id)).toBe(true);
  });
});
