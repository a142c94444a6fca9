import Database from 'better-sqlite3';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import { fileSource, type Source } from '../../src/read/sources.js';
import { StoreError, openDb, type Db } from '../../src/store/db.js';
import { deriveTimeline } from '../../src/store/derive.js';
import { T0, ingestSources, ndjson, rows, tempDir, track } from './support.js';
import { logSource, type LogLine } from '../helpers/logs.js';
import { cli } from '../cli/run-cli.js';

// One --db file across runs: the same bytes twice add nothing, and a file
// that fails half-way leaves the database exactly as it was before it.

const TABLES = ['sources', 'records', 'node_records', 'rejected', 'dirty_sessions', 'incarnations', 'streams', 'events', 'requests'];

function snapshot(db: Db): Record<string, unknown[]> {
  return Object.fromEntries(TABLES.map((t) => [t, rows(db, `SELECT * FROM ${t} ORDER BY rowid`)]));
}

const serverLog = [
  { ts: T0, kind: 'session.created', session: 'S1', principal: 'alice' },
  { ts: T0, kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' },
  { ts: T0, kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1 },
  { ts: T0, kind: 'request.sent', session: 'S1', stream: 'g1', request_id: 'r1', method: 'roots/list', event_id: 1 },
  '{oops',
];

function writeLog(dir: string, name: string, lines: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, ndjson(lines as never));
  return path;
}

/** Fails after `good` lines, the way a disk read or a network mount fails. */
function failingSource(name: string, good: string, message: string): Source {
  return {
    name,
    path: null,
    open: () =>
      Readable.from(
        (async function* () {
          yield Buffer.from(good);
          throw new Error(message);
        })(),
      ),
  };
}

describe('re-ingesting', () => {
  it('the same file into one --db adds nothing', async () => {
    const dir = tempDir();
    const dbPath = join(dir, 'timeline.db');
    const log = writeLog(dir, 'server.ndjson', serverLog);
    const first = await ingestSources([fileSource(log)], { db: dbPath });
    const before = snapshot(first.db);
    first.db.close();

    const again = await ingestSources([fileSource(log)], { db: dbPath });
    expect(again.sources[0]).toMatchObject({ duplicateOf: log });
    expect(snapshot(again.db)).toEqual(before);
    expect(before.records).toHaveLength(4);
    expect(before.rejected).toHaveLength(1);
  });

  it('the same bytes under another name, or twice in one run, add nothing', async () => {
    const dir = tempDir();
    const a = writeLog(dir, 'a.ndjson', serverLog);
    const b = writeLog(dir, 'b.ndjson', serverLog);
    const { db, sources } = await ingestSources([fileSource(a), fileSource(b), fileSource(a)]);
    expect(sources.map((s) => s.duplicateOf)).toEqual([undefined, a, a]);
    expect(rows(db, 'SELECT name FROM sources')).toEqual([{ name: a }]);
    expect(rows(db, 'SELECT count(*) AS n FROM records')).toEqual([{ n: 4 }]);
  });

  it('a changed file is new content and is added', async () => {
    const dir = tempDir();
    const dbPath = join(dir, 'timeline.db');
    const log = writeLog(dir, 'server.ndjson', serverLog);
    (await ingestSources([fileSource(log)], { db: dbPath })).db.close();
    writeLog(dir, 'server.ndjson', [...serverLog, { ts: T0, kind: 'session.terminated', session: 'S1' }]);
    const { db } = await ingestSources([fileSource(log)], { db: dbPath });
    expect(rows(db, 'SELECT count(*) AS n FROM sources')).toEqual([{ n: 2 }]);
  });
});

describe('a crash mid-file', () => {
  it('leaves the database as before that file, in memory and on disk', async () => {
    const dir = tempDir();
    const dbPath = join(dir, 'timeline.db');
    const { db } = await ingestSources([fileSource(writeLog(dir, 'a.ndjson', serverLog))], { db: dbPath });
    const before = snapshot(db);

    const half = ndjson([{ ts: T0, kind: 'session.created', session: 'S2' }, '{bad', { ts: T0, kind: 'session.terminated', session: 'S1' }]);
    const ws = await loadWorkspace([failingSource('b.ndjson', half, 'EIO: i/o error, read')], { db: dbPath });
    track(ws.db);
    expect(ws.sources[0]!.readError).toBe('EIO: i/o error, read');
    expect(ws.db.inTransaction).toBe(false);
    expect(snapshot(ws.db)).toEqual(before);
    ws.db.close();
    db.close();

    const reopened = track(openDb(dbPath));
    expect(snapshot(reopened)).toEqual(before);
  });

  it('the files after it are still ingested, and the failed file can be ingested again once readable', async () => {
    const dir = tempDir();
    const good = ndjson([{ ts: T0, kind: 'session.created', session: 'S2' }]);
    const { db, sources } = await ingestSources([
      failingSource('b.ndjson', good, 'connection reset'),
      fileSource(writeLog(dir, 'c.ndjson', [{ ts: T0, kind: 'session.created', session: 'S3' }])),
      { name: 'b.ndjson', path: null, open: () => Readable.from([Buffer.from(good)]) },
    ]);
    expect(sources.map((s) => [s.readError, s.duplicateOf])).toEqual([
      ['connection reset', undefined],
      [undefined, undefined],
      [undefined, undefined],
    ]);
    expect(rows(db, 'SELECT session FROM records ORDER BY id')).toEqual([{ session: 'S3' }, { session: 'S2' }]);
  });
});

describe('schema version', () => {
  function dbWithVersion(version: string): string {
    const path = join(tempDir(), 'timeline.db');
    const db = openDb(path);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(version);
    db.close();
    return path;
  }

  it('a new database records the version this resumescope writes', () => {
    const path = join(tempDir(), 'timeline.db');
    const db = track(openDb(path));
    expect(rows(db, 'SELECT key, value FROM meta')).toEqual([{ key: 'schema_version', value: '8' }]);
  });

  /** A database as an older resumescope wrote it: this schema less what came after `version`. */
  async function olderDb(version: 1 | 2 | 3 | 4 | 5 | 6 | 7, log: LogLine[] = [{ ts: 0, kind: 'session.created', session: 'S1', protocol_version: '2025-11-25' }]): Promise<string> {
    const path = join(tempDir(), 'timeline.db');
    await loadWorkspace([logSource(log)], { db: path }).then((ws) => ws.db.close());
    const old = new Database(path);
    old.exec('DROP TABLE report_cache; DROP TABLE report_cache_findings; DROP TABLE report_cache_not_knowable');
    old.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(version));
    if (version === 7) return (old.close(), path);
    old.exec('DROP TABLE node_records');
    old.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(version));
    if (version === 6) return (old.close(), path);
    // v5's repeated table had no of_source_id (a column of a foreign key cannot be dropped: the table is made again)
    old.exec(`DROP VIEW repeated_lines; ALTER TABLE repeated RENAME TO repeated_v6;
      CREATE TABLE repeated (source_id INTEGER NOT NULL REFERENCES sources(id), line INTEGER NOT NULL, of_line INTEGER NOT NULL);
      INSERT INTO repeated SELECT source_id, line, of_line FROM repeated_v6; DROP TABLE repeated_v6;
      CREATE VIEW repeated_lines AS SELECT s.name AS file, x.line, x.of_line FROM repeated x JOIN sources s ON s.id = x.source_id ORDER BY s.id, x.line`);
    old.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(version));
    if (version === 5) return (old.close(), path);
    old.exec('DROP VIEW repeated_lines; DROP TABLE repeated; ALTER TABLE sources DROP COLUMN repeated');
    old.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(version));
    if (version === 4) return (old.close(), path);
    old.exec('DROP INDEX events_lookup; CREATE INDEX events_lookup ON events (session, event_id)');
    old.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(version));
    if (version === 3) return (old.close(), path);
    old.exec('DROP INDEX records_version');
    for (const c of ['line_offset', 'line_bytes']) old.exec(`ALTER TABLE records DROP COLUMN ${c}`);
    for (const c of ['path', 'size', 'mtime_ms']) old.exec(`ALTER TABLE sources DROP COLUMN ${c}`);
    if (version === 1) for (const c of ['protocol_version', 'retry_ms', 'priming']) old.exec(`ALTER TABLE records DROP COLUMN ${c}`);
    old.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(version));
    old.close();
    return path;
  }
  const V5_ADDS = "SELECT (SELECT count(*) FROM sqlite_master WHERE name IN ('repeated', 'repeated_lines')) + (SELECT count(*) FROM pragma_table_info('sources') WHERE name = 'repeated') AS n";
  const V4_LOOKUP = "SELECT sql FROM sqlite_master WHERE name = 'events_lookup'";
  const LOOKUP_BY_TIME = [{ sql: 'CREATE INDEX events_lookup ON events (session, event_id, ts_ms)' }];
  const V3_ADDS = "SELECT (SELECT count(*) FROM sqlite_master WHERE name = 'records_version') + (SELECT count(*) FROM pragma_table_info('records') WHERE name IN ('line_offset', 'line_bytes')) + (SELECT count(*) FROM pragma_table_info('sources') WHERE name IN ('path', 'size', 'mtime_ms')) AS n";

  it('a version 1 database gains the log format 2 and 3 columns when opened for writing, and keeps its records', async () => {
    const path = await olderDb(1);
    expect(() => openDb(path, { readonly: true })).toThrow(/schema v1 needs an upgrade to v8/);
    const db = track(openDb(path));
    expect(rows(db, 'SELECT value FROM meta')).toEqual([{ value: '8' }]);
    expect(rows(db, V5_ADDS)).toEqual([{ n: 3 }]);
    expect(rows(db, V3_ADDS)).toEqual([{ n: 6 }]);
    expect(rows(db, V4_LOOKUP)).toEqual(LOOKUP_BY_TIME);
    expect(rows(db, 'SELECT session, protocol_version, raw IS NOT NULL AS quoted FROM records')).toEqual([{ session: 'S1', protocol_version: null, quoted: 1 }]);
  });

  it('a version 2 database gains the line offsets and the protocol-version index when opened for writing, and keeps its lines', async () => {
    const path = await olderDb(2);
    expect(() => openDb(path, { readonly: true })).toThrow(/schema v2 needs an upgrade to v8, which cannot be written to it here; copy it/);
    const db = track(openDb(path));
    expect(rows(db, 'SELECT value FROM meta')).toEqual([{ value: '8' }]);
    expect(rows(db, V5_ADDS)).toEqual([{ n: 3 }]);
    expect(rows(db, V3_ADDS)).toEqual([{ n: 6 }]);
    expect(rows(db, V4_LOOKUP)).toEqual(LOOKUP_BY_TIME);
    // (the view reads the derived incarnations: a session's creation)
    deriveTimeline(db);
    expect(rows(db, 'SELECT session, protocol_version FROM session_versions')).toEqual([{ session: 'S1', protocol_version: '2025-11-25' }]);
    expect(rows(db, 'SELECT raw IS NOT NULL AS quoted, line_offset FROM records')).toEqual([{ quoted: 1, line_offset: null }]);
  });

  it('a version 3 database has its event lookup index ordered by time when opened for writing, and keeps its records', async () => {
    const path = await olderDb(3);
    expect(() => openDb(path, { readonly: true })).toThrow(/schema v3 needs an upgrade to v8, which cannot be written to it here; copy it/);
    const db = track(openDb(path));
    expect(rows(db, 'SELECT value FROM meta')).toEqual([{ value: '8' }]);
    expect(rows(db, V5_ADDS)).toEqual([{ n: 3 }]);
    expect(rows(db, V4_LOOKUP)).toEqual(LOOKUP_BY_TIME);
    // (the view reads the derived incarnations: a session's creation)
    deriveTimeline(db);
    expect(rows(db, 'SELECT session, protocol_version FROM session_versions')).toEqual([{ session: 'S1', protocol_version: '2025-11-25' }]);
  });

  it('a version 4 database gains the repeated-line count and list when opened for writing, and keeps its records', async () => {
    const path = await olderDb(4);
    expect(() => openDb(path, { readonly: true })).toThrow(/schema v4 needs an upgrade to v8, which cannot be written to it here; copy it/);
    const db = track(openDb(path));
    expect(rows(db, 'SELECT value FROM meta')).toEqual([{ value: '8' }]);
    expect(rows(db, V5_ADDS)).toEqual([{ n: 3 }]);
    expect(rows(db, 'SELECT repeated FROM sources')).toEqual([{ repeated: 0 }]);
    expect(rows(db, 'SELECT session FROM records')).toEqual([{ session: 'S1' }]);
  });

  it('a version 5 database names the file a repeated line repeats when opened for writing, and keeps its list', async () => {
    const sent = JSON.stringify({ ts: '2026-11-09T10:00:01.013Z', kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1 });
    const path = await olderDb(5, [{ ts: 0, kind: 'session.created', session: 'S1' }, sent, sent]);
    expect(() => openDb(path, { readonly: true })).toThrow(/schema v5 needs an upgrade to v8, which cannot be written to it here; copy it/);
    const db = track(openDb(path));
    expect(rows(db, 'SELECT value FROM meta')).toEqual([{ value: '8' }]);
    expect(rows(db, 'SELECT * FROM repeated_lines')).toEqual([{ file: 'server.ndjson', line: 3, of_file: 'server.ndjson', of_line: 2 }]);
  });

  it('a version 6 database counts each node\'s records and finds its last server record when opened for writing', async () => {
    const path = await olderDb(6, [
      // numeric times are seconds
      { ts: 0, kind: 'session.created', session: 'S1', node: 'a' },
      { ts: 2000, kind: 'session.created', session: 'S2', node: 'b' },
      { ts: 1000, kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', node: 'a' }, // a's latest, though not its last line
      { ts: 500, kind: 'session.created', session: 'S3', node: 'a' },
      { ts: 3000, kind: 'session.created', session: 'S4' },
    ]);
    expect(() => openDb(path, { readonly: true })).toThrow(/schema v6 needs an upgrade to v8, which cannot be written to it here; copy it/);
    const db = track(openDb(path));
    expect(rows(db, 'SELECT value FROM meta')).toEqual([{ value: '8' }]);
    expect(rows(db, 'SELECT n.node, n.records, n.last_ms, r.line FROM node_records n JOIN records r ON r.id = n.last_id ORDER BY n.node')).toEqual([
      { node: null, records: 1, last_ms: 3_000_000, line: 5 },
      { node: 'a', records: 3, last_ms: 1_000_000, line: 3 },
      { node: 'b', records: 1, last_ms: 2_000_000, line: 2 },
    ]);
  });

  it('a command that upgrades a --db file says so on stderr, once: an older resumescope can no longer read it', async () => {
    const path = await olderDb(4);
    const first = await cli('analyze', '--db', path, '--fail-on', 'never', '-f', 'json');
    expect(first.code, first.err).toBe(0);
    expect(first.err).toBe(`resumescope: ${path}: upgraded from schema v4 to v8; an older resumescope can no longer read it\n`);
    // Near miss: a database of this schema is opened without a word.
    const again = await cli('analyze', '--db', path, '--fail-on', 'never', '-f', 'json');
    expect(again.err).toBe('');
    expect(again.out).toBe(first.out);
  });

  it("the hint for an old database that cannot be written works: a copy one can write to is upgraded as a command opens it", async () => {
    const path = await olderDb(3);
    expect(() => openDb(path, { readonly: true })).toThrow(
      `${path}: schema v3 needs an upgrade to v8, which cannot be written to it here; copy it (with its -wal, if there is one) to a folder you can write to and run the command on the copy, which is upgraded as it opens`,
    );
    const copy = join(tempDir(), 'copy.db');
    copyFileSync(path, copy);
    // Any command: the one that lists the tables too.
    const schema = await cli('query', '--schema', '--db', copy);
    expect(schema.code, schema.err).toBe(0);
    expect(schema.err).toBe(`resumescope: ${copy}: upgraded from schema v3 to v8; an older resumescope can no longer read it\n`);
    expect(schema.out).toContain('repeated_lines (view)');
    const a = await cli('analyze', '--db', copy, '--fail-on', 'never');
    expect(a.code, a.err).toBe(0);
    expect(a.err).toBe('');
  });

  it('a version 7 database gains the findings cache when opened for writing, and is read as it is where it cannot be', async () => {
    const path = await olderDb(7);
    const reader = track(openDb(path, { readonly: true }));
    expect(rows(reader, 'SELECT value FROM meta')).toEqual([{ value: '7' }]);
    expect(rows(reader, 'SELECT session FROM records')).toEqual([{ session: 'S1' }]);
    reader.close();
    const db = track(openDb(path));
    expect(rows(db, 'SELECT value FROM meta')).toEqual([{ value: '8' }]);
    expect(rows(db, "SELECT name FROM sqlite_master WHERE name LIKE 'report_cache%' ORDER BY name")).toEqual([
      { name: 'report_cache' },
      { name: 'report_cache_findings' },
      { name: 'report_cache_not_knowable' },
    ]);
    expect(rows(db, 'SELECT count(*) AS n FROM report_cache')).toEqual([{ n: 0 }]);
  });

  it('a database written by a newer resumescope is refused, saying what to do', () => {
    const path = dbWithVersion('9');
    expect(() => openDb(path)).toThrow(`${path}: written by a newer resumescope (schema v9; this one reads v8). Upgrade resumescope, or re-ingest the logs into a new --db file.`);
    expect(() => openDb(path, { readonly: true })).toThrow(/newer resumescope/);
  });

  it('loading logs into it is refused too, and it is left untouched', async () => {
    const path = dbWithVersion('10');
    await expect(loadWorkspace([], { db: path })).rejects.toThrow(/schema v10/);
    const raw = track(new Database(path, { readonly: true }));
    expect(rows(raw, 'SELECT value FROM meta')).toEqual([{ value: '10' }]);
    expect(rows(raw, 'SELECT count(*) AS n FROM sources')).toEqual([{ n: 0 }]);
  });

  it('a SQLite file of another program is refused', () => {
    const path = join(tempDir(), 'other.db');
    const foreign = new Database(path);
    foreign.exec('CREATE TABLE users (id INTEGER)');
    foreign.close();
    expect(() => openDb(path)).toThrow(`${path}: not a resumescope database (no meta table)`);
  });

  it('a file that is not a database at all is refused with its name', () => {
    const path = join(tempDir(), 'notes.db');
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(200));
    expect(() => openDb(path)).toThrow(StoreError);
    expect(() => openDb(path)).toThrow(`${path}: cannot open database (file is not a database)`);
  });
});
