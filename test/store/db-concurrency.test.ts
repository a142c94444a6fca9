import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, type CliResult } from '../cli/run-cli.js';

// QA pass: `query --db FILE` while a second process runs `ingest` into FILE.
// Repro with two shells on a 900k-line log (bench/generate.js):
//   resumescope ingest big.ndjson --db t.db &        # ~20 s
//   # as soon as its records are committed, while it derives the timeline:
//   resumescope query sessions --db t.db
// Either the query fails after 5 s with the bare "resumescope: database is locked" (exit 2),
// or, when the query gets the lock first, it derives the whole timeline itself (15 s) and the
// ingest, whose records were already committed, fails with "resumescope: database is locked"
// (exit 2). `query` is documented read-only, yet it writes (it derives dirty sessions).
// Here another connection plays the ingest: its records are in, its sessions are dirty, and it
// holds the write lock while it derives.

let dir: string;
let db: string;
let holder: Database.Database | undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-qa-db-'));
  db = join(dir, 't.db');
  expect((await cli('ingest', 'samples/writers.ndjson', '--db', db)).code).toBe(0);
});
afterEach(() => {
  if (holder?.inTransaction) holder.exec('ROLLBACK');
  holder?.close();
  holder = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** The CLI as bin/resumescope.js runs it: an error that escapes main() is printed and exits 2. */
async function run(...args: string[]): Promise<CliResult> {
  try {
    return await cli(...args);
  } catch (err) {
    return { code: 2, out: '', err: `resumescope: ${err instanceof Error ? err.message : String(err)}\n` };
  }
}

/** Another process mid-ingest: committed records whose sessions still need deriving, and the write lock held. */
function ingestInFlight({ dirty }: { dirty: boolean }): void {
  holder = new Database(db);
  if (dirty) holder.exec("INSERT OR IGNORE INTO dirty_sessions (session) VALUES ('S-1001')");
  holder.exec('BEGIN IMMEDIATE');
}

describe('a --db another process is writing to', () => {
  // Was a bug: a read-only `query` on a --db whose ingest is still deriving fails with "database is locked" (exit 2).
  it('query answers from what is committed instead of failing with "database is locked"', async () => {
    ingestInFlight({ dirty: true });
    const r = await run('query', 'SELECT count(*) AS n FROM records', '--db', db, '--format', 'json');
    expect(r.err).not.toContain('database is locked');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual([{ n: 20 }]);
  }, 30_000);

  // Was a bug: an ingest that cannot get the write lock blames its input: "samples/clean.ndjson: unusable: database is locked".
  it('ingest that cannot get the write lock names the database, not the input file as unusable', async () => {
    // Another writer holds the lock (nothing left to derive, so the message is the ingest's own).
    ingestInFlight({ dirty: false });
    const r = await run('ingest', 'samples/clean.ndjson', '--db', db);
    expect(r.code).toBe(2);
    expect(r.err).not.toMatch(/clean\.ndjson: unusable/);
    expect(r.err).toContain(db);
  }, 30_000);
});
