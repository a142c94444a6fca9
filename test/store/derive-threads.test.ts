import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../bench/generate.js';
import { fromDist } from '../helpers/dist.js';
import { chunkSessions, DERIVE_CHUNK_RECORDS, DERIVE_CHUNK_SESSIONS } from '../../src/store/session-chunks.js';
import { MAX_RECORDS_IN_FLIGHT } from '../../src/store/derive-worker-protocol.js';

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
let soak: string;

beforeAll(async () => {
  [threads, scratch, pipeline, sources] = await Promise.all([
    fromDist<Threads>('store/derive-threads.js'), fromDist<Scratch>('store/scratch-db.js'),
    fromDist<Pipeline>('pipeline/ingest.js'), fromDist<Sources>('read/sources.js'),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'resumescope-derive-threads-'));
  log = join(dir, 'production.ndjson');
  // The production shape has proxy lines a server line shadows, minting upgrades and many sessions (several chunks).
  await generate(log, 8000, { shape: 'production', seed: 5 });
  // A soak test's few sessions, each longer than a chunk's records and half the records the worker may have in flight.
  soak = join(dir, 'soak.ndjson');
  await generate(soak, 40_000, { shape: 'soak', seed: 2 });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function ingested(file = log): Promise<Db> {
  const db = scratch.openScratchDb({ quotesFromFiles: true });
  await pipeline.ingestAll(db, sources.expandPaths([file]), { threads: 'inline' });
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

  it('writes the rows one thread writes where sessions are longer than a chunk may hold', async () => {
    const two = await ingested(soak);
    const one = await ingested(soak);
    try {
      const longest = two.prepare('SELECT max(n) FROM (SELECT count(*) AS n FROM records GROUP BY session)').pluck().get() as number;
      expect(longest).toBeGreaterThan(DERIVE_CHUNK_RECORDS);
      expect(longest).toBeGreaterThan(MAX_RECORDS_IN_FLIGHT / 2); // the worker waits for each chunk to be written before sending the next
      await threads.deriveOnTwoThreads(two, { threads: 'worker' });
      await threads.deriveOnTwoThreads(one, { threads: 'inline' });
      const rows = derivedRows(two);
      expect((rows.events as unknown[]).length).toBeGreaterThan(10_000);
      expect(rows).toEqual(derivedRows(one));
    } finally {
      two.close();
      one.close();
    }
  }, 60_000);

  it('writes the rows one thread writes where the longest sessions are folded on this thread alone', async () => {
    for (const [file, soloRecords] of [[log, 20], [soak, 3000]] as const) {
      const two = await ingested(file);
      const one = await ingested(file);
      try {
        const sizes = two.prepare('SELECT count(*) FROM records WHERE session IS NOT NULL GROUP BY session').pluck().all() as number[];
        // some sessions go to this thread alone, others cross between the threads
        expect(sizes.filter((n) => n > soloRecords).length).toBeGreaterThan(1);
        expect(sizes.filter((n) => n <= soloRecords).length).toBeGreaterThan(0);
        await threads.deriveOnTwoThreads(two, { threads: 'worker', soloRecords });
        await threads.deriveOnTwoThreads(one, { threads: 'inline' });
        const rows = derivedRows(two);
        expect(rows.dirty).toEqual([]);
        expect(rows).toEqual(derivedRows(one));
      } finally {
        two.close();
        one.close();
      }
    }
  }, 90_000);

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

describe("derive's chunks", () => {
  const sessions = (...sizes: number[]) => sizes.map((n, i) => [`s${i}`, n] as const);

  it('hold at most DERIVE_CHUNK_SESSIONS sessions', () => {
    const chunks = chunkSessions(sessions(...Array.from({ length: 2 * DERIVE_CHUNK_SESSIONS + 1 }, () => 10)));
    expect(chunks.map((c) => c.length)).toEqual([DERIVE_CHUNK_SESSIONS, DERIVE_CHUNK_SESSIONS, 1]);
  });

  it('end before they would pass DERIVE_CHUNK_RECORDS records, and never split a session', () => {
    const half = DERIVE_CHUNK_RECORDS / 2;
    const chunks = chunkSessions(sessions(half, half, 1, 3 * DERIVE_CHUNK_RECORDS, 5, 6));
    expect(chunks).toEqual([['s0', 's1'], ['s2'], ['s3'], ['s4', 's5']]);
  });

  it('keep every session once, in order', () => {
    const input = sessions(...Array.from({ length: 500 }, (_, i) => (i * 7919) % 5000));
    expect(chunkSessions(input).flat()).toEqual(input.map(([s]) => s));
    expect(chunkSessions([])).toEqual([]);
  });
});
