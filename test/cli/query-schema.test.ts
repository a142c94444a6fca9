import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { SCHEMA_DOCS, columnDoc, describeSchema } from '../../src/store/schema-docs.js';
import { cli } from './run-cli.js';

// `query --schema` (review rv55, item 3): the tables a query sees, read from a live database, each
// column with its meaning from src/store/schema-docs.ts. The docs cannot rot: a table, view or
// column without a meaning, or a meaning for one that is gone, fails here.

let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'resumescope-schema-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the schema docs', () => {
  it('every table, view and column of a new database has its meaning written', () => {
    const db = openDb(':memory:');
    const missing = describeSchema(db).flatMap((t) => [...(t.about ? [] : [t.name]), ...t.columns.filter((c) => !c.about).map((c) => `${t.name}.${c.name}`)]);
    db.close();
    expect(missing).toEqual([]);
  });

  it('no meaning is written for a table or column that does not exist', () => {
    const db = openDb(':memory:');
    const live = describeSchema(db);
    db.close();
    expect(Object.keys(SCHEMA_DOCS).sort()).toEqual(live.map((t) => t.name).sort());
    for (const [name, doc] of Object.entries(SCHEMA_DOCS)) {
      if (doc.columns === 'records') continue;
      expect(Object.keys(doc.columns).sort(), name).toEqual(live.find((t) => t.name === name)!.columns.map((c) => c.name).sort());
    }
  });

  it('near miss: a column added without a meaning is caught', () => {
    const db = openDb(':memory:');
    db.exec('ALTER TABLE streams ADD COLUMN undocumented INTEGER');
    const streams = describeSchema(db).find((t) => t.name === 'streams')!;
    db.close();
    expect(streams.columns.find((c) => c.name === 'undocumented')!.about).toBeUndefined();
    expect(columnDoc('streams', 'lane')).toMatch(/lineage/);
  });
});

describe('query --schema', () => {
  it('lists the tables and views with their columns, types and meanings, sessions in incarnations', async () => {
    const r = await cli('query', '--schema');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^incarnations \(table\): sessions: one row per session\.created/m);
    expect(r.out).toMatch(/^ {2}created_ts +INTEGER +when it was created, epoch ms$/m);
    expect(r.out).toMatch(/^events \(table\): .*request\.sent/m);
    expect(r.out).toMatch(/^upgrades \(view\): /m);
    expect(r.out).toMatch(/^session_versions \(temp view\): /m);
    expect(r.out).toMatch(/^ {2}ts_ms +INTEGER +when it happened, epoch ms \(UTC\)$/m);
  });

  it('reads the --db file it is given, as JSON too', async () => {
    const db = join(dir, 'kept.db');
    expect((await cli('ingest', 'samples/clean.ndjson', '--db', db)).code).toBe(0);
    const r = await cli('query', '--schema', '--db', db, '-f', 'json');
    const tables = JSON.parse(r.out) as { name: string; columns: { name: string; about: string }[] }[];
    expect(tables.find((t) => t.name === 'records')!.columns.find((c) => c.name === 'ts_ms')!.about).toMatch(/epoch ms/);
  });

  it('near miss: there is no "sessions" table; the error says where sessions are', async () => {
    const r = await cli('query', 'SELECT * FROM sessions', 'samples/clean.ndjson');
    expect(r.code).toBe(2);
    expect(r.err).toContain('no such table: sessions');
    expect(r.err).toContain('query --schema');
  });
});

describe('the README', () => {
  it('names every table and view in "Querying the timeline"', () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('### Querying the timeline'), readme.indexOf('### The CI gate'));
    const missing = Object.keys(SCHEMA_DOCS).filter((t) => !section.includes(`\`${t}\``));
    expect(missing).toEqual([]);
  });
});
