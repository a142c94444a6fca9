// npm run bench [-- LINES]: ingest and analyze throughput next to a bare
// line-split + JSON.parse pass over the same file, in the same run.
// Needs dist/ (npm ci builds it). Speed goals live here, not in timed tests.
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { analyzeFiles, loadWorkspace } from '../dist/api.js';
import { expandPaths } from '../dist/read/sources.js';
import { deriveTimeline } from '../dist/store/derive.js';
import { generate } from './generate.js';

const lines = Number(process.argv[2] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'resumescope-bench-'));
const file = join(dir, 'bench.ndjson');

async function time(label, fn) {
  const t0 = process.hrtime.bigint();
  const result = await fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { label, ms, result };
}

async function bareParse() {
  let n = 0;
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line) JSON.parse(line);
    n++;
  }
  return n;
}

// The least any SQLite-backed analyzer does: split, parse, and insert eight
// fields of each line into an unindexed table (no normalization, no raw line,
// no derive, no rules). Where this alone takes over 2x the bare pass, so must
// anything that keeps the timeline in SQLite.
async function sqliteFloor() {
  const db = new Database(join(dir, 'floor.db'));
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec('CREATE TABLE r (id INTEGER PRIMARY KEY, ts TEXT, kind TEXT, session TEXT, stream TEXT, event_id TEXT, node TEXT, method TEXT, rpc_kind TEXT)');
  const insert = db.prepare('INSERT INTO r (ts, kind, session, stream, event_id, node, method, rpc_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const v = (x) => (x === undefined ? null : typeof x === 'number' ? String(x) : x);
  let n = 0;
  db.exec('BEGIN');
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line) continue;
    const o = JSON.parse(line);
    insert.run(v(o.ts), v(o.kind), v(o.session), v(o.stream), v(o.event_id), v(o.node), v(o.method), v(o.rpc_kind));
    n++;
  }
  db.exec('COMMIT');
  db.close();
  return n;
}

try {
  const written = await generate(file, lines);
  const mb = statSync(file).size / 1e6;
  console.log(`generated ${written} lines (${mb.toFixed(1)} MB) in ${file}`);
  const runs = [
    await time('bare split + JSON.parse', bareParse),
    await time('floor: + insert 8 fields into SQLite', sqliteFloor),
    await time('ingest (read → normalize → SQLite)', async () => {
      const ws = await loadWorkspace(expandPaths([file]));
      ws.db.close();
      return ws.sources[0].lines;
    }),
    // Derive on its own: a fresh ingest, then the first (whole-log) fold.
    await (async () => {
      const ws = await loadWorkspace(expandPaths([file]));
      try {
        return await time('derive (fold every session)', () => deriveTimeline(ws.db));
      } finally {
        ws.db.close();
      }
    })(),
    await time('analyze end to end', async () => (await analyzeFiles([file])).findings.length),
  ];
  const base = runs[0].ms;
  for (const r of runs) {
    const rate = Math.round(written / (r.ms / 1000));
    console.log(`${r.label.padEnd(42)} ${(r.ms / 1000).toFixed(2).padStart(7)} s  ${rate.toLocaleString('en').padStart(11)} lines/s  ${(r.ms / base).toFixed(2)}x bare`);
  }
  console.log(`heap after: ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB, rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
