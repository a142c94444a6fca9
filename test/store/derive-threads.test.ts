import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../bench/generate.js';
import { fromDist } from '../helpers/dist.js';
import { DERIVE_CHUNK_SESSIONS } from '../../src/store/derive.js';

// derive with its reading and folding shared with a worker thread must write the rows one thread
// writes. The worker runs from dist/ only: these tests use the build (test/helpers/dist.ts).

type Threads = typeof import('../../src/store/derive-threads.js');
type Scratch = typeof import('../../src/store/scratch-db.js');
type Pipeline = typeof import('../../src/pipeline/ingest.js');
type Sources = typeof import('../../src/read/sources.js');
type Db = import('../../src/store/db.js').Db;

let threads: Threads, scratch: Scratch, pipeline: Pipeline, sources: Sources;
let dir: string;
let log: string;

beforeAll(async () => {
  [threads, scratch, pipeline, sources] = await Promise.all([
    fromDist<Threads>('store/derive-threads.js'), fromDist<Scratch>('store/scratch-db.js'),
    fromDist<Pipeline>('pipeline/ingest.js'), fromDist<Sources>('read/sources.js'),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'resumescope-derive-threads-'));
  log = join(dir, 'production.ndjson');
  // The production shape has proxy lines a server line shadows, minting upgrades and many sessions (several chunks).
  await generate(log, 8000, { shape: 'production', seed: 5 });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function ingested(): Promise<Db> {
  const db = scratch.openScratchDb({ quotesFromFiles: true });
  await pipeline.ingestAll(db, sources.expandPaths([log]), { threads: 'inline' });
  return db;
}

const TABLES = ['incarnations', 'streams', 'events', 'requests'];

function derivedRows(db: Db) {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) out[t] = db.prepare(`SELECT rowid, * FROM ${t} ORDER BY rowid`).raw().all();
  out.shadowed = db.prepare('SELECT id FROM records WHERE shadowed = 1 ORDER BY id').pluck().all();
  out.dirty = db.prepare('SELECT session FROM dirty_sessions').pluck().all();
  return out;
}

describe('derive on two threads', () => {
  it('writes the rows one thread writes, and leaves nothing dirty', async () => {
    const two = await ingested();
    const one = await ingested();
    try {
      const sessions = two.prepare('SELECT count(*) FROM dirty_sessions').pluck().get() as number;
      expect(sessions).toBeGreaterThan(4 * DERIVE_CHUNK_SESSIONS); // several chunks cross between the threads
      expect(await threads.deriveOnTwoThreads(two, { threads: 'worker' })).toBe(sessions);
      expect(await threads.deriveOnTwoThreads(one, { threads: 'inline' })).toBe(sessions);
      const rows = derivedRows(two);
      expect((rows.events as unknown[]).length).toBeGreaterThan(1000);
      expect((rows.shadowed as unknown[]).length).toBeGreaterThan(0);
      expect(rows.dirty).toEqual([]);
      expect(rows).toEqual(derivedRows(one));
    } finally {
      two.close();
      one.close();
    }
  }, 60_000);

  it('loses nothing when the worker dies mid-way: its rows roll back and this thread derives', async () => {
    const dying = join(dir, 'dying-derive-worker.mjs');
    // Claims the first two chunks, sends the second one empty, and dies before sending the first:
    // this thread has written nothing of the worker's and must not commit what it wrote of its own.
    writeFileSync(
      dying,
      `import { parentPort, workerData } from 'node:worker_threads';
       Atomics.add(workerData.counter, 0, 2);
       parentPort.postMessage({ type: 'folds', chunk: 1, folds: [] });
       setTimeout(() => process.exit(5), 20);`,
    );
    const db = await ingested();
    const one = await ingested();
    try {
      await threads.deriveOnTwoThreads(db, { threads: 'worker', script: pathToFileURL(dying) });
      await threads.deriveOnTwoThreads(one, { threads: 'inline' });
      expect(db.inTransaction).toBe(false);
      expect(derivedRows(db)).toEqual(derivedRows(one));
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
      one.close();
    }
  }, 60_000);

  it('derives in this thread where no second connection can read beside the writer', async () => {
    const never = join(dir, 'never.mjs');
    writeFileSync(never, `throw new Error('started');`);
    const db = (await fromDist<typeof import('../../src/store/db.js')>('store/db.js')).openDb(':memory:');
    try {
      await pipeline.ingestAll(db, sources.expandPaths([log]), { threads: 'inline' });
      const sessions = db.prepare('SELECT count(*) FROM dirty_sessions').pluck().get();
      expect(await threads.deriveOnTwoThreads(db, { threads: 'worker', script: pathToFileURL(never) })).toBe(sessions);
    } finally {
      db.close();
    }
  }, 60_000);
});
