import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import { openDb, type Db } from '../../src/store/db.js';
import { fileSource } from '../../src/read/sources.js';
import { logSource } from '../helpers/logs.js';
import { T0, ingestSources, rows, tempDir, track } from './support.js';

// The fast paths of a load keep what is stored exactly as it was: a file
// loaded into an empty database gets its indexes built at the end, and each
// record shape binds only the columns it sets.

function indexes(db: Db, table = 'records'): unknown[] {
  return rows(db, "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? ORDER BY name", table);
}

const FRESH = indexes(track(openDb(':memory:')));
const DERIVED = ['incarnations', 'streams', 'events', 'requests'];
const FRESH_DERIVED = DERIVED.map((t) => indexes(track(openDb(':memory:')), t));

describe('a file loaded into an empty database', () => {
  it('leaves the records indexes as a new database has them, and session lookups use them', async () => {
    const { db } = await ingestSources([logSource([{ ts: T0, kind: 'session.created', session: 'S1' }])]);
    expect(FRESH.length).toBeGreaterThanOrEqual(5);
    expect(indexes(db)).toEqual(FRESH);
    const plan = rows<{ detail: string }>(db, "EXPLAIN QUERY PLAN SELECT id FROM records WHERE session = 'S1' ORDER BY ts_ms, id");
    expect(plan.map((p) => p.detail).join(' ')).toContain('records_session');
  });

  it('keeps its indexes when the file fails half-way, in memory and on disk', async () => {
    const dbPath = join(tempDir(), 'timeline.db');
    const failing = {
      name: 'b.ndjson',
      path: null,
      open: () =>
        Readable.from(
          (async function* () {
            yield Buffer.from(JSON.stringify({ ts: T0, kind: 'session.created', session: 'S2' }) + '\n');
            throw new Error('EIO: i/o error, read');
          })(),
        ),
    };
    const ws = await loadWorkspace([failing], { db: dbPath });
    track(ws.db);
    expect(ws.sources[0]!.readError).toBe('EIO: i/o error, read');
    expect(indexes(ws.db)).toEqual(FRESH);
    expect(rows(ws.db, 'SELECT count(*) AS n FROM records')).toEqual([{ n: 0 }]);
    ws.db.close();
    expect(indexes(track(openDb(dbPath)))).toEqual(FRESH);
  });

  it('a gzip cut short keeps the lines before the cut with the indexes built, on disk', async () => {
    const dir = tempDir();
    const dbPath = join(dir, 'timeline.db');
    const gz = gzipSync(Array.from({ length: 2000 }, (_, i) => JSON.stringify({ ts: T0, kind: 'session.created', session: `S${i}` }) + '\n').join(''));
    writeFileSync(join(dir, 'cut.ndjson.gz'), gz.subarray(0, gz.length - 40));
    const ws = await loadWorkspace([fileSource(join(dir, 'cut.ndjson.gz'))], { db: dbPath });
    expect(ws.sources[0]!.readError).toContain('lines before the cut were kept');
    expect(ws.sources[0]!.records).toBeGreaterThan(0);
    ws.db.close();
    expect(indexes(track(openDb(dbPath)))).toEqual(FRESH);
  });

  it('a duplicate of a stored file rolls back without touching the indexes', async () => {
    const line = { ts: T0, kind: 'session.created', session: 'S1' };
    const { db, sources } = await ingestSources([logSource([line], 'a.ndjson'), logSource([line], 'b.ndjson')]);
    expect(sources[1]!.duplicateOf).toBe('a.ndjson');
    expect(indexes(db)).toEqual(FRESH);
  });
});

describe('the first derive of a log', () => {
  const log = (session: string) => [
    { ts: T0, kind: 'session.created', session },
    { ts: T0, kind: 'stream.opened', session, stream: 'g1', via: 'get' },
    { ts: T0, kind: 'event.sent', session, stream: 'g1', event_id: 1 },
    { ts: T0, kind: 'request.sent', session, stream: 'g1', request_id: 'r1', method: 'roots/list', event_id: 1 },
  ];

  it('leaves the derived tables indexed as a new database has them, and so does a later derive', async () => {
    const dbPath = join(tempDir(), 'timeline.db');
    const { db } = await ingestSources([logSource(log('S1'), 'a.ndjson')], { db: dbPath });
    expect(rows(db, 'SELECT count(*) AS n FROM events')).toEqual([{ n: 1 }]);
    expect(DERIVED.map((t) => indexes(db, t))).toEqual(FRESH_DERIVED);
    const plan = rows<{ detail: string }>(db, "EXPLAIN QUERY PLAN SELECT id FROM events WHERE session = 'S1' AND event_id = '1'");
    expect(plan.map((p) => p.detail).join(' ')).toContain('events_lookup');
    db.close();

    const again = await ingestSources([logSource(log('S2'), 'b.ndjson')], { db: dbPath });
    expect(rows(again.db, 'SELECT session FROM events ORDER BY id')).toEqual([{ session: 'S1' }, { session: 'S2' }]);
    expect(DERIVED.map((t) => indexes(again.db, t))).toEqual(FRESH_DERIVED);
  });
});

describe('record shapes', () => {
  // Seven optional fields of an upgrade, every subset of them: 128 shapes, more than get a statement of their own.
  const OPTIONAL = [
    ['seq', 'seq', 7, 7],
    ['node', 'node', 'n1', 'n1'],
    ['conn', 'conn', 'c1', 'c1'],
    ['principal', 'principal', 'alice', 'alice'],
    ['replayed', 'replayed', 3, 3],
    ['attached', 'attached', false, 0],
    ['replayed_ids', 'replayed_ids', [1, '2'], '["1","2"]'],
  ] as const;

  it('store every field a record sets in its column and leave the rest NULL, whatever the mix', async () => {
    const lines = Array.from({ length: 1 << OPTIONAL.length }, (_, mask) => {
      const line: Record<string, unknown> = { ts: T0, kind: 'upgrade', decision: 'fresh', status: 200 };
      OPTIONAL.forEach(([field, , value], bit) => {
        if (mask & (1 << bit)) line[field] = value;
      });
      return line;
    });
    const { db } = await ingestSources([logSource(lines)]);
    const cols = OPTIONAL.map(([, column]) => column).join(', ');
    const stored = rows<Record<string, unknown>>(db, `SELECT line, decision, status, session, reason, ${cols} FROM records ORDER BY id`);
    expect(stored).toHaveLength(lines.length);
    stored.forEach((row, mask) => {
      const expected: Record<string, unknown> = { line: mask + 1, decision: 'fresh', status: 200, session: null, reason: null };
      OPTIONAL.forEach(([, column, , value], bit) => (expected[column] = mask & (1 << bit) ? value : null));
      expect(row).toEqual(expected);
    });
  });
});
