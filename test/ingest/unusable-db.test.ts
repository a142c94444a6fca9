import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';
import { openDb } from '../../src/store/db.js';

// A CI user's report: `ingest nosuch.ndjson --db x.db` exits 2, then `analyze --db x.db` printed
// "0 records … no findings" and exited 0. A gate split into ingest and analyze steps passed a
// broken export. The database now keeps its unusable inputs until an ingest reads them.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-unusable-db-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const CLEAN = 'samples/clean.ndjson';
const WRITERS = 'samples/writers.ndjson';

describe('a database whose ingest had an unusable input', () => {
  it('a later analyze --db says so again on stderr, shows it in its report, and exits 2', async () => {
    const db = join(dir, 'x.db');
    const missing = join(dir, 'nosuch.ndjson');
    expect((await cli('ingest', missing, CLEAN, '--db', db)).code).toBe(2);

    const text = await cli('analyze', '--db', db);
    expect(text.code).toBe(2);
    expect(text.err).toContain(`resumescope: ${missing}: unusable: cannot read (ENOENT: no such file or folder) (when ingested into ${db}; ingest it again once it is usable)`);
    expect(text.out).toContain(`  ${missing}: cannot read (ENOENT: no such file or folder)`);

    const md = await cli('analyze', '--db', db, '-f', 'markdown');
    expect(md.code).toBe(2);
    expect(md.out.split('\n')[0]).toMatch(/^❌ \*\*resumescope\*\*: 1 input was unusable: the gate failed \(exit 2\)/);
    expect(md.out).toContain(`- <code>${missing}</code>: cannot read (ENOENT: no such file or folder)`);

    const sarif = JSON.parse((await cli('analyze', '--db', db, '-f', 'sarif')).out).runs[0];
    expect(sarif.invocations[0].executionSuccessful).toBe(false);
  });

  it('every command on the database says so and exits 2, an ingest of another file too: the database still lacks it', async () => {
    const db = join(dir, 'x.db');
    const missing = join(dir, 'nosuch.ndjson');
    await cli('ingest', missing, WRITERS, '--db', db);
    for (const args of [['query', 'SELECT count(*) AS n FROM records'], ['timeline', 'S-1001'], ['explain', '-n', '1'], ['ingest', CLEAN]]) {
      const r = await cli(...args, '--db', db);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toContain(`${missing}: unusable: cannot read (ENOENT`);
    }
  });

  it('an input of no record line is kept too, and ingesting the same bytes again does not clear it', async () => {
    const db = join(dir, 'x.db');
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(bad, 'hello\nnot json\n');
    expect((await cli('ingest', bad, '--db', db)).code).toBe(2);
    const again = await cli('ingest', bad, '--db', db);
    expect(again.err).toContain('already ingested');
    expect(again.code).toBe(2);
    const r = await cli('analyze', '--db', db);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${bad}: unusable: no record lines (line 1: invalid JSON`);
  });

  it('a later ingest that reads the input clears it, under another spelling of its path too', async () => {
    const db = join(dir, 'x.db');
    const late = join(dir, 'late.ndjson');
    expect((await cli('ingest', late, '--db', db)).code).toBe(2);
    copyFileSync(CLEAN, late);
    const ingest = await cli('ingest', relative(process.cwd(), late), '--db', db);
    expect(ingest.err).not.toContain('unusable');
    expect(ingest.code).toBe(0);
    const r = await cli('analyze', '--db', db);
    expect(r.err).not.toContain('unusable');
    expect(r.code).toBe(0);
  });

  it('a file fixed after it gave no record is cleared by ingesting its new content', async () => {
    const db = join(dir, 'x.db');
    const file = join(dir, 'export.ndjson');
    writeFileSync(file, 'hello\n');
    expect((await cli('ingest', file, '--db', db)).code).toBe(2);
    copyFileSync(CLEAN, file);
    expect((await cli('ingest', file, '--db', db)).code).toBe(0);
    expect((await cli('analyze', '--db', db)).code).toBe(0);
  });

  it('a file unreadable for a while and read again with the bytes the database already holds is cleared', async () => {
    // A pipeline that ingests a whole folder every run: what it read before is a duplicate, and in the database.
    const db = join(dir, 'x.db');
    const file = join(dir, 'node-a.ndjson');
    copyFileSync(CLEAN, file);
    expect((await cli('ingest', file, '--db', db)).code).toBe(0);
    unlinkSync(file);
    expect((await cli('ingest', file, '--db', db)).code).toBe(2);
    copyFileSync(CLEAN, file);
    const back = await cli('ingest', file, '--db', db);
    expect(back.err).toContain('already ingested');
    expect(back.code).toBe(0);
    expect((await cli('analyze', '--db', db)).code).toBe(0);
  });
});

describe('a database whose ingests were all usable', () => {
  it('analyze --db exits as the findings say, with nothing said of unusable inputs', async () => {
    const db = join(dir, 'ok.db');
    expect((await cli('ingest', CLEAN, '--db', db)).code).toBe(0);
    const r = await cli('analyze', '--db', db);
    expect(r.code).toBe(0);
    expect(r.err).not.toContain('unusable');
    expect(r.out).not.toContain('UNUSABLE');
    expect((await cli('analyze', '--db', db, WRITERS)).code).toBe(1);
  });

  it('one written by a resumescope that kept no unusable inputs (no such key in meta) reads as before', async () => {
    const db = join(dir, 'older.db');
    await cli('ingest', join(dir, 'nosuch.ndjson'), CLEAN, '--db', db);
    const raw = new Database(db);
    raw.prepare("DELETE FROM meta WHERE key NOT IN ('schema_version', 'analyzed_records')").run();
    raw.close();
    const r = await cli('analyze', '--db', db);
    expect(r.err).not.toContain('unusable');
    expect(r.code).toBe(0);
  });

  it('a one-off run (no --db) names only its own inputs', async () => {
    const r = await cli('analyze', CLEAN);
    expect(r.code).toBe(0);
    expect(r.err).not.toContain('unusable');
  });
});

// An SRE's report: a run killed as it created the database (its schema written, nothing stored, no mark yet),
// and a 0-byte file (`DB=$(mktemp)` when the ingest step never ran), both passed `analyze --db`: exit 0.
describe('a database that holds no input', () => {
  it('an empty file is no database: exit 2, and it is left as it was', async () => {
    const db = join(dir, 'empty.db');
    writeFileSync(db, '');
    const r = await cli('analyze', '--db', db);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`resumescope: ${db}: an empty file, no database; ingest logs into it first\n`);
    expect(readFileSync(db).length).toBe(0);
  });

  it('a schema with no input and no mark: every command on it exits 2', async () => {
    const db = join(dir, 'schema-only.db');
    openDb(db).close();
    for (const args of [['analyze'], ['query', 'SELECT 1'], ['timeline', 'S-1001']]) {
      const r = await cli(...args, '--db', db);
      expect(r.code, args[0]).toBe(2);
      expect(r.err, args[0]).toContain(`${db}: holds no ingested input`);
    }
  });

  it('near miss: an input with no findings in it passes, as does an ingest into the schema-only database', async () => {
    const db = join(dir, 'schema-only.db');
    openDb(db).close();
    expect((await cli('ingest', CLEAN, '--db', db)).code).toBe(0);
    expect((await cli('analyze', '--db', db)).code).toBe(0);
  });
});

describe('standard input named twice', () => {
  it('is a usage error, not a silent exit 0 with no report', async () => {
    for (const args of [['analyze', '-', '-'], ['ingest', '-', '-', '--db', join(dir, 'twice.db')], ['analyze', CLEAN, '-', '-', '-f', 'json']]) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toBe('resumescope: - (standard input) is named more than once: it can be read once\n');
      expect(r.out).toBe('');
    }
  });
});

// A reviewer killed `ingest big.ndjson --db x.db` a few seconds in: the load's transaction was undone, and
// `analyze --db x.db` said "0 records … no findings", exit 0. A gate split into two steps passed an ingest
// that never finished. Its inputs are marked unfinished before they are read, in a write of their own.
describe('a database whose ingest did not finish', () => {
  const BIN = join(import.meta.dirname, '../../bin/resumescope.js');
  const marks = (db: string): string => {
    const d = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return (d.prepare("SELECT value FROM meta WHERE key = 'unusable_inputs'").pluck().get() as string | undefined) ?? '';
    } finally {
      d.close();
    }
  };

  it('a later analyze --db names its input and exits 2, until an ingest reads the input to its end', async () => {
    const db = join(dir, 'x.db');
    const fifo = join(dir, 'export.ndjson');
    execFileSync('mkfifo', [fifo]);
    // A reader blocked on a pipe that gives one line and never ends: the ingest is killed halfway, as by a CI timeout.
    // Its spool of the pipe goes in the test's folder: a killed run leaves its scratch folder behind.
    const ingest = spawn(process.execPath, [BIN, 'ingest', fifo, '--db', db], { stdio: 'ignore', env: { ...process.env, TMPDIR: dir } });
    // Opened without blocking, and tried until the ingest has opened its end: a wait with a bound.
    let writer: number | undefined;
    for (const until = Date.now() + 20_000; writer === undefined && Date.now() < until; ) {
      try {
        writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    expect(writer).toBeDefined();
    try {
      writeSync(writer!, '{"ts":"2026-11-09T10:00:00.000Z","kind":"session.created","session":"S1"}\n');
      const until = Date.now() + 20_000;
      while (!(existsSync(db) && marks(db).includes('did not finish')) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    } finally {
      ingest.kill('SIGKILL');
      await new Promise((r) => ingest.once('exit', r));
      if (writer !== undefined) closeSync(writer);
    }
    const after = await cli('analyze', '--db', db);
    expect(after.code).toBe(2);
    expect(after.err).toContain(`${fifo}: unusable: the ingest reading it did not finish (stopped, or still running) (when ingested into ${db}`);
    expect(after.out).toContain(`  ${fifo}: the ingest reading it did not finish`);

    // The same input read to its end (a file now, at the same path) clears it.
    unlinkSync(fifo);
    writeFileSync(fifo, '{"ts":"2026-11-09T10:00:00.000Z","kind":"session.created","session":"S1"}\n');
    expect((await cli('ingest', fifo, '--db', db)).code).toBe(0);
    const again = await cli('analyze', '--db', db);
    expect(again.code).toBe(0);
    expect(again.err).not.toContain('did not finish');
  });

  it('near miss: an ingest that finished leaves no mark, nor does reading the same bytes again', async () => {
    const db = join(dir, 'x.db');
    expect((await cli('ingest', CLEAN, '--db', db)).code).toBe(0);
    expect(marks(db)).toBe('');
    expect((await cli('ingest', CLEAN, '--db', db)).code).toBe(0);
    expect(marks(db)).toBe('');
    expect((await cli('analyze', '--db', db)).code).toBe(0);
  });
});
