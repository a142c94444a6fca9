import { afterEach } from 'vitest';
import { detect } from '../../src/pipeline/derived.js';
import type { RunOptions } from '../../src/detect/run.js';
import type { Finding } from '../../src/model/finding.js';
import type { InputLine } from '../../src/read/lines.js';
import { SourceIngest } from '../../src/pipeline/ingest.js';
import { openDb, type Db } from '../../src/store/db.js';

// In-memory databases for the live tests, closed after each test, and what `analyze` finds in a log read
// whole: the live pipeline is held to it.

const dbs: Db[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

export function memoryDb(): Db {
  const db = openDb(':memory:');
  dbs.push(db);
  return db;
}

export function inputLines(text: string, firstLine = 1): InputLine[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((t, i) => ({ line: firstLine + i, text: t }));
}

/** What analyze reports for these sources, read whole. */
export function wholeLogFindings(sources: { name: string; text: string }[], opts: RunOptions = {}): Finding[] {
  const db = memoryDb();
  for (const s of sources) {
    const ingest = new SourceIngest(db, s.name);
    for (const l of inputLines(s.text)) ingest.add(l);
    ingest.finish(null);
  }
  return detect(db, opts).findings;
}
