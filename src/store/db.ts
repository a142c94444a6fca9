// Before better-sqlite3 loads: a read-only copy in a read-only folder is opened by a `file:` URI (openReadOnly).
import './sqlite-uri.js';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { MIGRATE_1_TO_2, MIGRATE_2_TO_3, MIGRATE_3_TO_4, MIGRATE_4_TO_5, MIGRATE_5_TO_6, MIGRATE_6_TO_7, MIGRATE_7_TO_8, SCHEMA_SQL, SCHEMA_VERSION } from './schema.js';
import { DERIVED_VIEWS_SQL } from './views.js';

export type Db = Database.Database;

export class StoreError extends Error {}

/**
 * The embedded, throw-away database analysing commands use when no --db is
 * given: SQLite's anonymous temporary file, which keeps a small page cache in
 * memory and spills to disk, so memory stays flat however large the log
 * (':memory:' held ~1 GB for 1M records), and is deleted when closed.
 */
export const EMBEDDED_DB = '';

/**
 * The databases of one-off runs, which quote evidence by re-reading the log files (line
 * offsets) instead of keeping copies of lines: EMBEDDED_DB, and a scratch file opened for it.
 * A --db file keeps the copies, so that it quotes its evidence after the logs are rotated away.
 */
const QUOTES_FROM_FILES = new WeakSet<Db>();

export function quotesFromFiles(db: Db): boolean {
  return QUOTES_FROM_FILES.has(db);
}

export function markQuotesFromFiles(db: Db): Db {
  QUOTES_FROM_FILES.add(db);
  return db;
}

export interface OpenOptions {
  readonly?: boolean;
  readonlyIfNeeded?: boolean;
  /** Told when an older schema was upgraded in place (a one-way step: an older resumescope can no longer read the file). */
  onUpgrade?: (from: number, to: number) => void;
}

/** Opens (or creates) a timeline database: a file, EMBEDDED_DB, or ':memory:'. */
export function openDb(path: string = ':memory:', opts: OpenOptions = {}): Db {
  if (opts.readonly === true) return openReadOnly(path);
  let db: Db;
  try {
    db = new Database(fileName(path));
  } catch (err) {
    throw new StoreError(`${path}: cannot open database (${(err as Error).message})`);
  }
  try {
    // The first statements are where SQLite finds out the file is no database at all.
    if (path === EMBEDDED_DB) {
      db.pragma('synchronous = OFF'); // nothing to keep across a crash
    } else if (path !== ':memory:') {
      // WAL + one transaction per ingested file: a crash mid-ingest leaves the last complete file.
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    ready(db, path, false, opts.onUpgrade);
  } catch (err) {
    db.close();
    // A database handed over read-only (a file of mode 0444, a read-only mount) still answers what only reads it.
    if (opts.readonlyIfNeeded === true && READ_ONLY_CODES.test(codeOf(err))) return openReadOnly(path);
    if (READ_ONLY_CODES.test(codeOf(err))) {
      throw new StoreError(`${path}: cannot write to the database (${(err as Error).message}); what only reads it (query, timeline, explain, whatif, analyze --db with no logs) still can`);
    }
    throw asStoreError(path, err);
  }
  return path === EMBEDDED_DB ? markQuotesFromFiles(db) : db;
}

/** What every connection does first: its foreign keys, the schema's version (created or migrated where it may write), the derived views. */
function ready(db: Db, path: string, readonly: boolean, onUpgrade?: OpenOptions['onUpgrade']): void {
  db.pragma('foreign_keys = ON');
  checkVersion(db, path, readonly, onUpgrade);
  db.exec(DERIVED_VIEWS_SQL);
}

/** A relative path that starts `file:` is a file of that name, not a URI (store/sqlite-uri.ts). */
function fileName(path: string): string {
  return path.startsWith('file:') ? resolve(path) : path;
}

/** SQLite's error code ('SQLITE_READONLY_DIRECTORY'), or '' for any other error. */
function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

const READ_ONLY_CODES = /^SQLITE_(READONLY|CANTOPEN|PERM)/;

function asStoreError(path: string, err: unknown): StoreError {
  return err instanceof StoreError ? err : new StoreError(`${path}: cannot open database (${(err as Error).message})`);
}

/**
 * A read-only connection. A --db file is in WAL mode, and a reader needs to create its `-shm` beside
 * it: in a folder it may not write to, the file is opened immutable instead (no locks, no `-shm`),
 * which is right only when nothing writes to it, and when no `-wal` holds writes not yet in the file.
 */
function openReadOnly(path: string): Db {
  const open = (name: string): Db => {
    const db = new Database(name, { readonly: true, fileMustExist: true });
    try {
      ready(db, path, true);
      return db;
    } catch (err) {
      db.close();
      throw err;
    }
  };
  try {
    return open(fileName(path));
  } catch (err) {
    if (err instanceof StoreError || !/^SQLITE_(READONLY|CANTOPEN)/.test(codeOf(err))) throw asStoreError(path, err);
    const wal = `${path}-wal`;
    if (existsSync(wal) && statSync(wal).size > 0) {
      throw new StoreError(`${path}: cannot open database read-only: its last writes are in ${wal}, which SQLite cannot read in a folder it may not write to; copy both files to a folder you can write to`);
    }
    try {
      return open(`${pathToFileURL(resolve(path)).href}?immutable=1`);
    } catch (again) {
      throw asStoreError(path, again);
    }
  }
}

function checkVersion(db: Db, path: string, readonly: boolean, onUpgrade?: OpenOptions['onUpgrade']): void {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").get();
  const hasTables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type='table'").get() as { n: number };
  if (!hasMeta) {
    if (hasTables.n > 0) throw new StoreError(`${path}: not a resumescope database (no meta table)`);
    if (readonly) throw new StoreError(`${path}: empty database; ingest logs into it first`);
    db.exec(SCHEMA_SQL);
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('schema_version', String(SCHEMA_VERSION));
    return;
  }
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  const version = Number(row?.value);
  if (version === SCHEMA_VERSION) return;
  if (version > SCHEMA_VERSION) {
    throw new StoreError(
      `${path}: written by a newer resumescope (schema v${version}; this one reads v${SCHEMA_VERSION}). Upgrade resumescope, or re-ingest the logs into a new --db file.`,
    );
  }
  // v8 added only the findings cache, which a reader does without (detect/report-cache.ts): a v7 file handed over
  // read-only is read as it is, every rule run again.
  if (readonly && version === 7) return;
  if (version >= 1 && version <= 7) {
    // Every command upgrades what it may write, so a copy it may write to is the way on.
    if (readonly) {
      throw new StoreError(
        `${path}: schema v${version} needs an upgrade to v${SCHEMA_VERSION}, which cannot be written to it here; copy it (with its -wal, if there is one) to a folder you can write to and run the command on the copy, which is upgraded as it opens`,
      );
    }
    if (version === 1) db.exec(MIGRATE_1_TO_2);
    if (version <= 2) db.exec(MIGRATE_2_TO_3);
    if (version <= 3) db.exec(MIGRATE_3_TO_4);
    if (version <= 4) db.exec(MIGRATE_4_TO_5);
    if (version <= 5) db.exec(MIGRATE_5_TO_6);
    if (version <= 6) db.exec(MIGRATE_6_TO_7);
    db.exec(MIGRATE_7_TO_8);
    onUpgrade?.(version, SCHEMA_VERSION);
    return;
  }
  // No other older schema has been released; anything else is not ours to guess at.
  throw new StoreError(`${path}: unknown schema version ${row?.value ?? '(none)'}; re-ingest the logs into a new --db file.`);
}

/** What a command says on stderr when it upgraded a --db file: the file is the newer version's from then on. */
export function upgradeNote(path: string, from: number, to: number): string {
  return `${path}: upgraded from schema v${from} to v${to}; an older resumescope can no longer read it`;
}

/** SQLite's "database is locked": another process holds the write lock past the busy timeout. */
export function isLocked(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === 'SQLITE_BUSY';
}

/** SQLite failures of the storage itself (a full disk, an I/O error, a read-only or broken file): the database's problem, never the input's. */
const STORAGE_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB|NOMEM|PERM)/;

export function isStorageFailure(err: unknown): err is Error & { code: string } {
  return err instanceof Error && STORAGE_CODES.test(codeOf(err));
}

/** A storage failure said of the database it happened to (the anonymous scratch file has no name; it lives in TMPDIR). */
export function storageError(db: Db | undefined, err: Error & { code: string }): StoreError {
  const where = db === undefined ? 'the database (the --db file, else the scratch one in TMPDIR)' : db.name === EMBEDDED_DB ? "the scratch database (SQLite's temporary file, in TMPDIR)" : db.name;
  const hint = err.code === 'SQLITE_FULL' ? '; free space there, or put the database (--db FILE, TMPDIR) on a disk with room' : '';
  return new StoreError(`${where}: ${err.message} (${err.code})${hint}`);
}

export function lockedError(db: Db): StoreError {
  return new StoreError(`${db.name}: database is locked by another process (an ingest or watch still writing to it?); try again when it has finished`);
}
