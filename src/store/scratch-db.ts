import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markQuotesFromFiles, openDb, type Db } from './db.js';

/**
 * A throw-away timeline database in a named temporary file, for work another
 * process must read: `query` runs its statement in a child process it can
 * kill (store/bounded-query.ts). EMBEDDED_DB, SQLite's anonymous temporary
 * file, cannot be opened by a second process. The private directory (mode
 * 0700) is removed when the database is closed, or at exit if it never is.
 */
export function openScratchDb(opts: { quotesFromFiles?: boolean } = {}): Db {
  const dir = mkdtempSync(join(tmpdir(), 'resumescope-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', remove);
  let db: Db;
  try {
    db = openDb(join(dir, 'timeline.db'));
  } catch (err) {
    remove();
    process.off('exit', remove);
    throw err;
  }
  // Nothing to keep across a crash, as with EMBEDDED_DB.
  db.pragma('synchronous = OFF');
  const close = db.close.bind(db);
  db.close = () => {
    close();
    remove();
    process.off('exit', remove);
    return db;
  };
  return opts.quotesFromFiles ? markQuotesFromFiles(db) : db;
}
