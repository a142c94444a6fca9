import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadInputs } from '../../src/pipeline/ingest.js';
import { expandPaths } from '../../src/read/sources.js';
import { EMBEDDED_DB, openDb, StoreError, type Db } from '../../src/store/db.js';

// An SRE's report: with the disk full, `analyze x.ndjson --db /full/x.db` said
// "x.ndjson: unusable: database or disk is full", blaming an export that was fine.
// SQLite's max_page_count makes the same SQLITE_FULL without filling a disk.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-full-disk-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function tiny(path: string): () => Db {
  return () => {
    const db = openDb(path);
    // Room for the schema and one page more: the first input's records do not fit.
    db.pragma(`max_page_count = ${(db.pragma('page_count', { simple: true }) as number) + 1}`);
    return db;
  };
}

describe('a database that runs out of room while an input is stored', () => {
  it('blames the database, not the input, and names it', async () => {
    const path = join(dir, 'x.db');
    const load = loadInputs(expandPaths(['samples/writers.ndjson', 'samples/session-continuity.ndjson', 'samples/replay-integrity.ndjson']), { embedded: tiny(path), threads: 'inline' });
    const err = await load.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toBe(`${path}: database or disk is full (SQLITE_FULL); free space there, or put the database (--db FILE, TMPDIR) on a disk with room`);
  });

  it('the scratch database is named as such', async () => {
    const err = await loadInputs(expandPaths(['samples/writers.ndjson', 'samples/session-continuity.ndjson', 'samples/replay-integrity.ndjson']), { embedded: tiny(EMBEDDED_DB), threads: 'inline' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).message).toMatch(/^the scratch database \(SQLite's temporary file, in TMPDIR\): database or disk is full/);
  });

  it('near miss: a database with room stores the same inputs, none unusable', async () => {
    const loaded = await loadInputs(expandPaths(['samples/writers.ndjson']), { embedded: () => openDb(join(dir, 'roomy.db')), threads: 'inline' });
    expect(loaded.unusable).toEqual([]);
    expect(loaded.stats[0]!.records).toBeGreaterThan(0);
    loaded.db.close();
  });
});

describe('a spool that cannot be written', () => {
  it('blames the spool and where it is, not standard input', () => {
    // The file-size limit (ulimit -f, in KiB) stops the spool's write with EFBIG, as a full TMPDIR does with ENOSPC.
    const log = join(dir, 'big.ndjson');
    const lines = readFileSync('samples/writers.ndjson', 'utf8');
    writeFileSync(log, lines.repeat(Math.ceil(300_000 / lines.length)));
    const bin = join(import.meta.dirname, '../../bin/resumescope.js');
    const r = spawnSync('bash', ['-c', 'ulimit -f 100 && "$NODE" "$BIN" analyze - < "$LOG"'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NODE: process.execPath, BIN: bin, LOG: log },
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^resumescope: cannot write the spool of <stdin> \(\S+spool-0\.log\): EFBIG: file too large, write\n$/);
    expect(r.stderr).not.toContain('unusable');
  });
});

describe('a report file that cannot be written whole', () => {
  it('-o FILE: says so naming the file, exits 2, and leaves no part of the report', () => {
    // 16 KiB: the HTML report of the samples is larger, and one chunk of it is written in part, then fails (EFBIG).
    const out = join(dir, 'report.html');
    const bin = join(import.meta.dirname, '../../bin/resumescope.js');
    const r = spawnSync('bash', ['-c', 'ulimit -f 16 && "$NODE" "$BIN" analyze samples/writers.ndjson samples/replay-integrity.ndjson -f html --fail-on never -o "$OUT"'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NODE: process.execPath, BIN: bin, OUT: out },
    });
    expect(r.stderr).toBe(`resumescope: cannot write the report to ${out}: EFBIG: file too large, write (the part written was removed)\n`);
    expect(r.status).toBe(2);
    expect(existsSync(out)).toBe(false);
  });

  it('near miss: with room, the whole report is written', () => {
    const out = join(dir, 'report.html');
    const bin = join(import.meta.dirname, '../../bin/resumescope.js');
    const r = spawnSync(process.execPath, [bin, 'analyze', 'samples/writers.ndjson', 'samples/replay-integrity.ndjson', '-f', 'html', '--fail-on', 'never', '-o', out], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/<\/html>\n?$/);
  });
});
