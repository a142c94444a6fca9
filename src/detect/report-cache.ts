import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from '../model/canonical-json.js';
import type { Summary } from '../model/finding.js';
import { TOOL_VERSION } from '../model/tool-version.js';
import { isLocked, isStorageFailure, type Db } from '../store/db.js';
import { QUERIES_DIR } from '../store/queries.js';
import { SCHEMA_VERSION } from '../store/schema.js';
import { FindingTable } from './finding-table.js';
import { NotKnowableTable } from './not-knowable-spool.js';
import { detectOptionsOf, type RunOptions, type TableReport } from './run.js';
import { DEFAULT_DETECT_OPTIONS } from './types.js';

/**
 * The findings cache of a --db file: the report a judgement of the database made (its findings, their
 * evidence as record ids, what could not be judged, the summary), kept in its tables (store/schema.ts
 * REPORT_CACHE) so that a later command on the same database reads it instead of running every rule again
 * (1M production lines: explaining one finding took 30-60 s). It is keyed by everything the report
 * depends on: resumescope's code (its version, and a digest of its modules and queries, so that a build
 * with any change misses), the schema, SQLite's version, the rules' options, and what the database holds
 * (every input's row in `sources`, the marks in `meta`, the last record, rejected and repeated line): an
 * ingest or a `watch --db` that adds anything changes the key, and the next judgement replaces the cache.
 * The evidence is resolved to file:line as the report is read, from the same rows as a fresh report.
 */
export class ReportCache {
  /** The cache for a run with these options; none where the caller runs its own rules (what-if's variants: functions, with no key). */
  static of(db: Db, opts: RunOptions): ReportCache | undefined {
    if (opts.rules !== undefined) return undefined;
    return new ReportCache(db, judgementOf(db, opts), contentOf(db));
  }

  private constructor(
    private readonly db: Db,
    private readonly judgement: string,
    private readonly content: string,
  ) {}

  private get key(): string {
    return createHash('sha256').update(this.judgement).update('\0').update(this.content).digest('hex');
  }

  /** The kept report, when it was made with this key; undefined otherwise (or where the database has no cache: v7 read-only). */
  read(): TableReport | undefined {
    if (!hasCacheTables(this.db)) return undefined;
    // One read transaction: another run may replace the cache between reading the key and the rows.
    return this.db.transaction((): TableReport | undefined => {
      const kept = this.db.prepare('SELECT key, summary FROM main.report_cache').get() as { key: string; summary: string } | undefined;
      if (kept?.key !== this.key) return undefined;
      return {
        version: 1,
        findings: FindingTable.copiedFrom(this.db, 'main.report_cache_findings'),
        not_knowable: NotKnowableTable.copiedFrom(this.db, 'main.report_cache_not_knowable'),
        summary: JSON.parse(kept.summary) as Summary,
      };
    })();
  }

  /**
   * Keeps a report just made with this key, in place of the one kept: where the database can be written, and
   * only if it holds what it held when the key was taken (a `watch --db` may have added records while the
   * rules ran: the report is then of neither content). One transaction, the key written last: a run killed
   * halfway leaves the cache as it was, never a key over rows it did not write. A database another process
   * holds locked, or a full disk, leaves the cache as it was too: the report is what the command is for.
   */
  keep(report: TableReport): void {
    if (this.db.readonly || !hasCacheTables(this.db) || contentOf(this.db) !== this.content) return;
    try {
      this.db
        .transaction(() => {
          this.db.exec('DELETE FROM main.report_cache; DELETE FROM main.report_cache_findings; DELETE FROM main.report_cache_not_knowable;');
          report.findings.copyTo('main.report_cache_findings');
          report.not_knowable.copyTo('main.report_cache_not_knowable');
          this.db.prepare('INSERT INTO main.report_cache (key, summary) VALUES (?, ?)').run(this.key, JSON.stringify(report.summary));
        })
        .immediate();
    } catch (err) {
      if (isLocked(err) || isStorageFailure(err)) return;
      throw err;
    }
  }
}

/** The report's tables are there: a v7 database opened read-only has none (store/db.ts). */
function hasCacheTables(db: Db): boolean {
  return db.prepare("SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = 'report_cache'").get() !== undefined;
}

/** What judges the database: the code, the schema, SQLite, and the rules' options. */
function judgementOf(db: Db, opts: RunOptions): string {
  const options = detectOptionsOf(opts);
  // Keys sorted at every depth (a retention override is an object): the same options, the same text.
  const thresholds = Object.fromEntries(Object.keys(DEFAULT_DETECT_OPTIONS).map((name) => [name, options[name as keyof typeof options]]));
  const disabled = [...new Set(opts.disabled ?? [])].sort();
  const sqlite = db.prepare('SELECT sqlite_version()').pluck().get() as string;
  return canonicalJson([CACHE_FORMAT, TOOL_VERSION, codeDigest(), SCHEMA_VERSION, sqlite, thresholds, disabled]);
}

/** The cache's own layout: a change to what it keeps bumps it. */
const CACHE_FORMAT = 1;

/**
 * What the database holds, as far as the report can tell: each input's row (its hash, counts and marks as
 * complete), the `meta` keys an ingest writes (the unusable inputs, a followed file's prefix; not the
 * statistics' record count, which a judgement itself writes), and the last row of each table an ingest only
 * appends to. Reads a few rows per input, never the records.
 */
function contentOf(db: Db): string {
  const sources = db.prepare('SELECT * FROM main.sources ORDER BY id').raw().all();
  const meta = db.prepare("SELECT key, value FROM main.meta WHERE key <> 'analyzed_records' ORDER BY key").raw().all();
  const last = db.prepare('SELECT (SELECT max(rowid) FROM main.records), (SELECT max(rowid) FROM main.rejected), (SELECT max(rowid) FROM main.repeated)').raw().get();
  return JSON.stringify([sources, meta, last]);
}

let digest: string | undefined;

/**
 * A digest of the code that judges: every module of this build (dist/, or src/ under the tests) and every
 * query, read once per process (about 5 MB, tens of ms). A development build keeps the package's version
 * while its rules change: the version alone would let it read another build's findings.
 */
function codeDigest(): string {
  if (digest !== undefined) return digest;
  const hash = createHash('sha256');
  for (const root of [CODE_ROOT, QUERIES_DIR]) {
    for (const file of filesUnder(root)) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return (digest = hash.digest('hex'));
}

const CODE_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The code files under a folder, in a fixed order. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return filesUnder(path);
      return /\.(js|ts|tsx|sql)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
    });
}
