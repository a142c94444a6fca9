import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../bench/generate.js';
import { fromDist } from '../helpers/dist.js';

// The normalizing worker thread runs from dist/ only (a worker cannot load
// src/'s TypeScript), so these tests use the build, as test/live does.

type Pipeline = typeof import('../../src/pipeline/ingest.js');
type Store = typeof import('../../src/store/db.js');
type Sources = typeof import('../../src/read/sources.js');
type WorkerFeed = typeof import('../../src/pipeline/worker-feed.js');

let pipeline: Pipeline, store: Store, sources: Sources, workerFeed: WorkerFeed;
let dir: string;

beforeAll(async () => {
  [pipeline, store, sources, workerFeed] = await Promise.all([
    fromDist<Pipeline>('pipeline/ingest.js'), fromDist<Store>('store/db.js'), fromDist<Sources>('read/sources.js'),
    fromDist<WorkerFeed>('pipeline/worker-feed.js'),
  ]);
});

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function fixture(): Promise<string[]> {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-worker-'));
  const log = join(dir, 'production.ndjson');
  await generate(log, 3000, { shape: 'production', seed: 3 });
  // Lines the worker must reject, redact and count exactly as this thread does, past the first batch
  // (BATCH_LINES), which the worker always normalizes itself: its lines tell it the file's format.
  const odd = join(dir, 'odd.log');
  writeFileSync(
    odd,
    readFileSync(log, 'utf8').split('\n').slice(0, 2300).join('\n') +
      '\n{"ts": "2026-11-09T10:00:00Z", "kind":\n' +
      '{"ts":"2026-11-09T10:00:01.000Z","kind":"call","session":"S1","rpc_id":1,"tool":"t","headers":{"authorization":"Bearer abc.def.ghi"}}\n' +
      '\n\u0000binary\n',
  );
  const gz = join(dir, 'production.ndjson.gz');
  writeFileSync(gz, gzipSync(readFileSync(log)));
  const cut = join(dir, 'cut.ndjson.gz');
  const whole = gzipSync(readFileSync(log).subarray(0, 200_000));
  writeFileSync(cut, whole.subarray(0, whole.length - 40));
  // OTLP export requests of three records, every seventh with a record that lacks its event id: rejected in part
  const otlp = join(dir, 'otlp.ndjson');
  const attr = (key: string, v: string) => ({ key, value: { stringValue: v } });
  const record = (line: number, i: number) => ({
    timeUnixNano: String((Date.parse('2026-11-09T10:00:00Z') + line * 10 + i) * 1e6),
    attributes: [attr('kind', 'event.sent'), attr('session', `S${line % 5}`), attr('stream', 'g1'), ...(line % 7 === 3 && i === 1 ? [] : [attr('event_id', `${line}-${i}`)])],
  });
  const request = (l: number, n: number) => JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: Array.from({ length: n }, (_, i) => record(l, i)) }] }] });
  // then three lines of 5,000 records (about 1.5 MB, past BATCH_CHARS: each is normalized where it is read)
  writeFileSync(otlp, [...Array.from({ length: 2500 }, (_, l) => request(l, 3)), ...[2500, 2501, 2502].map((l) => request(l, 5000))].join('\n') + '\n');
  // Per-file state that straddles the first batch: a line delivered again (normalize/repeated-lines.ts) and a
  // stateless request's stream whose later events carry no version (stateless-streams.ts). Whichever thread
  // normalizes the batches after the first, the repeat is read once and the events inherit the stream's version.
  const straddling = join(dir, 'straddling.ndjson');
  const base = Date.parse('2026-11-09T10:00:00Z');
  const event = (ms: number, fields: object) => JSON.stringify({ ts: new Date(base + ms).toISOString(), kind: 'event.sent', ...fields });
  const lines = [JSON.stringify({ ts: new Date(base).toISOString(), kind: 'session.created', session: 'S1' })];
  lines.push(JSON.stringify({ ts: new Date(base + 3).toISOString(), kind: 'stream.opened', stream: 'sl1', via: 'post', protocol_version: '2026-07-28' }));
  for (let i = 0; i < 2 * 2000; i++) lines.push(event(5 + i * 3, { session: 'S1', stream: 'g1', event_id: i }));
  // and an event on a stream no stateless request named: rejected, its text read back from the file where no copy was made
  lines.push(event(20_001, { stream: 'sl1', event_id: 'a' }), lines[100]!, event(20_002, { stream: 'sl1', event_id: 'b' }), event(20_003, { stream: 'nope', event_id: 'c' }));
  writeFileSync(straddling, lines.join('\n') + '\n');
  // An export written as one JSON array, pretty-printed (a console's "export as JSON"): entries across batches.
  const exported = join(dir, 'export.json');
  const entries = readFileSync(log, 'utf8').split('\n').slice(0, 3000).filter(Boolean).map((l) => JSON.parse(l));
  writeFileSync(exported, JSON.stringify(entries, null, 2));
  // A console's CSV download (Splunk's: _time, host, _raw): each line a quoted cell, rows across batches.
  const csv = join(dir, 'export.csv');
  const cell = (v: string) => `"${v.replace(/"/g, '""')}"`;
  // (each record marked: the same record's text as export.json's would be that record delivered again, read once)
  writeFileSync(csv, ['_time,host,_raw', ...entries.map((e) => `${e.ts ?? ''},web-1,${cell(JSON.stringify({ ...e, via_csv: 1 }))}`)].join('\r\n') + '\r\n');
  return [log, odd, gz, cut, otlp, straddling, exported, csv];
}

async function ingestWith(threads: 'worker' | 'inline', files: string[], handOver?: 'always' | 'never', quotesFromFiles = false) {
  // quotesFromFiles: a one-off run's database, which keeps where a plain file's lines are instead of their text
  const db = quotesFromFiles ? store.markQuotesFromFiles(store.openDb(':memory:')) : store.openDb(':memory:');
  const stats = await pipeline.ingestAll(db, sources.expandPaths(files), { threads, jsonArray: true, csv: true, ...(handOver && { handOver }) });
  const rows = {
    records: db.prepare('SELECT * FROM records ORDER BY id').raw().all(),
    rejected: db.prepare('SELECT * FROM rejected ORDER BY id').raw().all(),
    sources: db.prepare('SELECT id, name, sha256, format, lines, record_lines, records, ignored, repeated, rejected FROM sources ORDER BY id').raw().all(),
    repeated: db.prepare('SELECT * FROM repeated_lines').raw().all(),
  };
  db.close();
  return { stats, rows };
}

describe('normalizing in a worker thread', () => {
  it('is available in the build', () => {
    expect(workerFeed.workerAvailable()).toBe(true);
  });

  it('stores the same rows, rejections and counts as normalizing in this thread', async () => {
    const files = await fixture();
    const inline = await ingestWith('inline', files);
    const worker = await ingestWith('worker', files);
    expect(inline.rows.records.length).toBeGreaterThan(2500);
    expect(inline.rows.rejected.length).toBeGreaterThan(1);
    expect(inline.stats.find((s) => s.name.endsWith('otlp.ndjson'))).toMatchObject({ lines: 2503, rejected: 358, records: 7500 - 357 + 15_000 - 1 }); // line 2502 too has a bad record
    expect(inline.stats.find((s) => s.name.endsWith('cut.ndjson.gz'))?.readError).toMatch(/^gzip:/);
    expect(inline.stats.find((s) => s.name.endsWith('straddling.ndjson'))).toMatchObject({ lines: 4006, records: 4004, repeated: 1, rejected: 1 });
    expect(inline.stats.find((s) => s.name.endsWith('export.json'))).toMatchObject({ lines: 3000, recordLines: expect.toSatisfy((n: number) => n > 2900), rejected: 0 });
    // The header is an ignored line; each row the record its _raw holds.
    const exported = inline.stats.find((s) => s.name.endsWith('export.json'))!;
    expect(inline.stats.find((s) => s.name.endsWith('export.csv'))).toMatchObject({ lines: 3001, recordLines: exported.recordLines, ignored: exported.ignored + 1, rejected: 0 });
    expect(worker.stats).toEqual(inline.stats);
    expect(worker.rows).toEqual(inline.rows);
    expect(JSON.stringify(worker.rows)).not.toContain('abc.def.ghi');
  }, 60_000);

  it('stores the same rows whichever thread normalizes a batch (lines handed over as read, or none)', async () => {
    const files = await fixture();
    for (const quotesFromFiles of [false, true]) {
      const inline = await ingestWith('inline', files, undefined, quotesFromFiles);
      expect(inline.rows.rejected.at(-1)).toEqual([expect.any(Number), expect.any(Number), 4006, 'event.sent: missing required field session', expect.stringContaining('"stream":"nope"')]);
      for (const handOver of ['always', 'never'] as const) {
        const worker = await ingestWith('worker', files, handOver, quotesFromFiles);
        expect(worker.stats).toEqual(inline.stats);
        expect(worker.rows).toEqual(inline.rows);
        expect(JSON.stringify(worker.rows)).not.toContain('abc.def.ghi');
      }
    }
  }, 60_000);

  it("takes the pod a kubelet's log path names for the node of records naming none, whichever thread reads them", async () => {
    dir = mkdtempSync(join(tmpdir(), 'resumescope-worker-'));
    const podDir = join(dir, 'billing_mcp-0_3f1c9a2e-5b7d-4c1e-9a0f-2b8e6d4c7a91', 'mcp');
    mkdirSync(podDir, { recursive: true });
    const file = join(podDir, '0.log');
    const base = Date.parse('2026-11-09T10:00:00Z');
    const cri = (ms: number, rec: object) => `${new Date(base + ms).toISOString()} stdout F ${JSON.stringify({ ts: new Date(base + ms).toISOString(), ...rec })}`;
    // Past the first batch (BATCH_LINES), so that the worker hands lines over in one of the runs.
    const lines = [cri(0, { kind: 'session.created', session: 'S1', node: 'named-node' })];
    for (let i = 0; i < 4500; i++) lines.push(cri(1 + i, { kind: 'event.sent', session: 'S1', stream: 'g1', event_id: i }));
    writeFileSync(file, lines.join('\n') + '\n');
    // records columns: id, source_id, line, ts_ms, kind, origin, shadowed, seq, node
    const nodeOf = (r: unknown) => (r as unknown[])[8];
    const inline = await ingestWith('inline', [file]);
    expect(new Set(inline.rows.records.map(nodeOf))).toEqual(new Set(['named-node', 'mcp-0']));
    expect(inline.rows.records.filter((r) => nodeOf(r) === 'mcp-0')).toHaveLength(4500);
    for (const handOver of ['always', 'never'] as const) expect((await ingestWith('worker', [file], handOver)).rows).toEqual(inline.rows);
  }, 60_000);

  it('joins a line the container runtime split, whichever thread reads the lines around it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'resumescope-worker-'));
    const file = join(dir, 'split.log');
    const base = Date.parse('2026-11-09T10:00:00Z');
    const at = (ms: number) => new Date(base + ms).toISOString();
    const cri = (ms: number, tag: string, text: string, stream = 'stdout') => `${at(ms)} ${stream} ${tag} ${text}`;
    const lines = [cri(0, 'F', JSON.stringify({ ts: at(0), kind: 'session.created', session: 'S1' }))];
    const upgrade = (i: number) => JSON.stringify({
      ts: at(10 + i), kind: 'upgrade', session: 'S1', stream: 'g1', new_stream: `g${i + 2}`, last_event_id: 'e-0', decision: 'resume', status: 200,
      replayed: 3000, first_replayed: 'e-1', replayed_ids: Array.from({ length: 3000 }, (_, k) => `e-${k + 1}`),
    });
    // Pieces across the first batch's end (BATCH_LINES), and across later ones, with stderr between them.
    for (let i = 0; lines.length < 6000; i++) {
      if (lines.length % 1000 < 990) lines.push(cri(5 + i, 'F', JSON.stringify({ ts: at(5 + i), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: `x${i}` })));
      else {
        const text = upgrade(i);
        lines.push(cri(5 + i, 'P', text.slice(0, 16384)), cri(5 + i, 'F', 'stderr between pieces', 'stderr'), cri(5 + i, 'F', text.slice(16384)));
      }
    }
    writeFileSync(file, lines.join('\n') + '\n');
    const kindOf = (r: unknown) => (r as unknown[])[4];
    const inline = await ingestWith('inline', [file]);
    expect(inline.rows.records.filter((r) => kindOf(r) === 'upgrade').length).toBeGreaterThanOrEqual(5);
    expect(inline.rows.rejected).toEqual([]);
    for (const handOver of ['always', 'never'] as const) expect((await ingestWith('worker', [file], handOver)).rows, handOver).toEqual(inline.rows);
  }, 60_000);

  it('sends lines of a hundred records each (an OTLP export request per line) in messages of a few dozen lines, not 2,000', async () => {
    dir = mkdtempSync(join(tmpdir(), 'resumescope-worker-'));
    const file = join(dir, 'otlp.ndjson');
    const attr = (key: string, v: string) => ({ key, value: { stringValue: v } });
    const request = (line: number) => ({
      resourceLogs: [{ scopeLogs: [{ logRecords: Array.from({ length: 100 }, (_, i) => ({
        timeUnixNano: String((Date.parse('2026-11-09T10:00:00Z') + line * 100 + i) * 1e6),
        attributes: [attr('kind', 'event.sent'), attr('session', `S${line % 7}`), attr('stream', 'g1'), attr('event_id', `${line}-${i}`)],
      })) }] }],
    });
    writeFileSync(file, Array.from({ length: 1000 }, (_, l) => JSON.stringify(request(l))).join('\n') + '\n');
    for (const handOver of ['never', 'always'] as const) {
      const seen: number[] = [];
      const db = store.openDb(':memory:');
      const [stats] = await pipeline.ingestAll(db, sources.expandPaths([file]), { threads: 'worker', handOver, onLines: (_, lines) => seen.push(lines) });
      db.close();
      expect(stats!.records).toBe(100_000);
      const sizes = seen.map((n, i) => n - (seen[i - 1] ?? 0)).filter((n) => n > 0);
      // the first batch stays in the worker until the format is known; every one is bounded by what it holds, not its lines
      expect(Math.max(...sizes), handOver).toBeLessThan(200);
    }
  }, 60_000);

  it('stops with a clear error when the worker dies, and leaves the database as it was before that file', async () => {
    const [log, odd] = (await fixture()) as [string, string];
    const crashing = join(dir, 'crashing-worker.mjs');
    // A worker that sends one batch of lines, then dies mid-file.
    writeFileSync(
      crashing,
      `import { parentPort } from 'node:worker_threads';
       parentPort.on('message', (m) => {
         if (m.type !== 'open') return;
         parentPort.postMessage({ type: 'lines', batch: { shapes: [], cells: [0] } }); // one ignored line
         setTimeout(() => process.exit(3), 20);
       });`,
    );
    const dbPath = join(dir, 'kept.db');
    const db = store.openDb(dbPath);
    await pipeline.ingestAll(db, sources.expandPaths([odd]), { threads: 'inline' });
    const before = db.prepare('SELECT count(*) FROM records').pluck().get();
    await expect(pipeline.ingestAll(db, sources.expandPaths([log]), { threads: 'worker', workerScript: pathToFileURL(crashing) })).rejects.toThrow(
      `${log}: the thread normalizing it stopped (it exited with code 3); nothing of this file was stored`,
    );
    expect(db.inTransaction).toBe(false);
    expect(db.prepare('SELECT count(*) FROM records').pluck().get()).toBe(before);
    expect(db.prepare('SELECT name FROM sources').pluck().all()).toEqual([odd]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  }, 60_000);
});
