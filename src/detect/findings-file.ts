import Database from 'better-sqlite3';
import { FILE_TABLE, FINDING_COLUMNS, insertFindings } from './finding-table.js';
import type { RawFinding } from './types.js';

/**
 * Where the rules worker (detect/rules-worker.ts) sets down its rules' findings: a database
 * file of its own, which the main thread's report table adopts once the worker is done
 * (FindingTable.adopt). Posted across the thread instead, a rule's findings were three
 * copies at once (the worker's, the message, the main thread's), and the main thread takes
 * messages only between its own units: at 10M production lines duplicate-tool-call's 72,772
 * findings waited as a message through the 15 s the main thread spent on the summary.
 */
export class FindingsFile {
  static create(path: string): FindingsFile {
    const db = new Database(path);
    // A throw-away file: nothing to keep across a power loss. The rollback journal stays on disk, so
    // that a worker that dies mid-rule leaves a file the main thread still reads, without that rule.
    db.pragma('synchronous = OFF');
    // Appends only: a small page budget is enough.
    db.pragma(`cache_size = -${CACHE_KIB}`);
    db.exec(`CREATE TABLE ${FILE_TABLE} (${FINDING_COLUMNS})`);
    return new FindingsFile(db);
  }

  private constructor(private readonly db: Database.Database) {}

  /** One rule's findings, committed before it returns. */
  add(findings: readonly RawFinding[]): void {
    insertFindings(this.db, `main.${FILE_TABLE}`, findings);
  }

  close(): void {
    this.db.close();
  }
}

const CACHE_KIB = 1024;
