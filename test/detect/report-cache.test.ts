import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generate } from '../../bench/generate.js';
import { loadWorkspace } from '../../src/api.js';
import { ReportCache } from '../../src/detect/report-cache.js';
import { detectIntoTable, type TableReport } from '../../src/detect/run.js';
import { inMemory } from '../../src/findings/recount.js';
import { derive } from '../../src/pipeline/derived.js';
import { fileSource } from '../../src/read/sources.js';
import type { Db } from '../../src/store/db.js';

// The findings cache's writes (detect/report-cache.ts): a report is kept only as the judgement of what
// the database held when its key was taken, and a keep that fails leaves the report kept before it whole.

let dir: string;
const open: Db[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'resumescope-report-cache-'));
});
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function judged(...files: string[]): Promise<{ db: Db; path: string }> {
  const path = join(dir, 't.db');
  const { db } = await loadWorkspace(files.map(fileSource), { db: path });
  open.push(db);
  derive(db);
  return { db, path };
}

const kept = (db: Db) => db.prepare('SELECT (SELECT count(*) FROM report_cache) AS keys, (SELECT count(*) FROM report_cache_findings) AS findings').get();
const judge = (db: Db, stormCount?: number): TableReport => detectIntoTable(db, stormCount === undefined ? {} : { stormCount });

describe('keeping a report', () => {
  it('keeps the report of what the database held, read back whole under the same key', async () => {
    const { db } = await judged('samples/http-edge.ndjson');
    const cache = ReportCache.of(db, {})!;
    expect(cache.read()).toBeUndefined();
    const report = judge(db);
    cache.keep(report);
    expect(kept(db)).toEqual({ keys: 1, findings: 3 });
    expect(inMemory(ReportCache.of(db, {})!.read()!)).toEqual(inMemory(report));
    // Near miss: other thresholds are another key.
    expect(ReportCache.of(db, { stormCount: 20 })!.read()).toBeUndefined();
  });

  it('does not keep a report of a database that grew while the rules ran (a watch --db appending)', async () => {
    const { db, path } = await judged('samples/http-edge.ndjson');
    const cache = ReportCache.of(db, {})!;
    const report = judge(db);
    const other = await loadWorkspace([fileSource('samples/writers.ndjson')], { db: path });
    other.db.close();
    cache.keep(report);
    expect(kept(db)).toEqual({ keys: 0, findings: 0 });
    expect(ReportCache.of(db, {})!.read()).toBeUndefined();
  });

  it('a keep that fails halfway leaves the report kept before it, key and rows', async () => {
    const { db } = await judged('samples/http-edge.ndjson');
    ReportCache.of(db, {})!.keep(judge(db));
    const before = db.prepare('SELECT * FROM report_cache_findings ORDER BY n').all();
    // The key is written last: a write that dies there has written every finding of the new report.
    db.exec("CREATE TEMP TRIGGER die BEFORE INSERT ON main.report_cache BEGIN SELECT RAISE(ABORT, 'killed'); END");
    const storms = ReportCache.of(db, { stormCount: 20 })!;
    expect(() => storms.keep(judge(db, 20))).toThrow('killed');
    db.exec('DROP TRIGGER temp.die');
    expect(db.prepare('SELECT * FROM report_cache_findings ORDER BY n').all()).toEqual(before);
    expect(ReportCache.of(db, {})!.read()).toBeDefined();
    expect(storms.read()).toBeUndefined();
  });

  it('a full disk leaves no cache, and the report is still read from its own tables', async () => {
    const log = join(dir, 'bad.ndjson');
    await generate(log, 8000, { shape: 'bad-server', seed: 1 });
    const { db } = await judged(log);
    const report = judge(db);
    expect(report.findings.length).toBeGreaterThan(40);
    const cache = ReportCache.of(db, {})!;
    // No free page left, and no page more: the findings' rows need new pages.
    db.exec('VACUUM');
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    cache.keep(report);
    expect(kept(db)).toEqual({ keys: 0, findings: 0 });
    expect([...report.findings].length).toBe(report.findings.length);
  });
});
