import { describe, expect, it } from 'vitest';
import { buildStages, eachQueryRow } from '../../src/detect/query-rows.js';
import { DEFAULT_DETECT_OPTIONS } from '../../src/detect/types.js';
import { deriveTimeline } from '../../src/store/derive.js';
import type { Db } from '../../src/store/db.js';
import { loadQuery, queryParts, splitStatements } from '../../src/store/queries.js';
import { at, workspaceOf } from '../helpers/logs.js';

// A staged query builds its large intermediate results as TEMP tables, on the
// run's page budget, before the statement that answers (SQLite gives every
// MATERIALIZED CTE its own 16 MB cache whatever cache_size says).

const opts = DEFAULT_DETECT_OPTIONS;
const tempTables = (db: Db) => db.prepare("SELECT name FROM sqlite_temp_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];

describe('query files split into statements', () => {
  it('splits at top-level semicolons only: not in strings, quoted names or comments', () => {
    const sql = `-- first; with a semicolon in a comment
CREATE TEMP TABLE a AS SELECT 'x;y' AS v, "odd;name" AS w /* ; */;
CREATE INDEX temp.a_v ON a (v);
SELECT v FROM a WHERE v <> 'it''s;';
-- a trailing comment is no statement
`;
    expect(splitStatements(sql)).toEqual([
      `-- first; with a semicolon in a comment\nCREATE TEMP TABLE a AS SELECT 'x;y' AS v, "odd;name" AS w /* ; */`,
      'CREATE INDEX temp.a_v ON a (v)',
      "SELECT v FROM a WHERE v <> 'it''s;'",
    ]);
    expect(queryParts(sql)).toMatchObject({ tables: ['a'], select: "SELECT v FROM a WHERE v <> 'it''s;'" });
  });

  it('a one-statement query has no stages, with or without its closing semicolon', () => {
    expect(queryParts('SELECT 1;\n')).toEqual({ stages: [], select: 'SELECT 1', tables: [] });
    expect(queryParts('SELECT 1')).toEqual({ stages: [], select: 'SELECT 1', tables: [] });
  });

  it('refuses a stage that is not a TEMP table or an index on one: a query file never writes the timeline', () => {
    expect(() => queryParts('DELETE FROM records; SELECT 1')).toThrow(/CREATE TEMP TABLE/);
    expect(() => queryParts('CREATE TABLE kept AS SELECT 1; SELECT 1')).toThrow(/CREATE TEMP TABLE/);
    expect(() => queryParts('CREATE INDEX temp.r ON records (id); SELECT 1')).toThrow(/no earlier stage creates/);
  });
});

describe('staged queries run', () => {
  const lines = [
    { ts: at(0), kind: 'session.created', session: 'S1', principal: 'tok:ann' },
    { ts: at(10), kind: 'call', session: 'S1', rpc_id: 1, method: 'tools/call', tool: 'pay', args_hash: 'h1', status: 200 },
    { ts: at(20), kind: 'session.terminated', session: 'S1', reason: 'evicted' },
    { ts: at(30), kind: 'session.created', session: 'S2', principal: 'tok:ann' },
    { ts: at(40), kind: 'call', session: 'S2', rpc_id: 1, method: 'tools/call', tool: 'pay', args_hash: 'h1', status: 200 },
  ];

  async function derived(): Promise<Db> {
    const ws = await workspaceOf(lines);
    deriveTimeline(ws.db);
    return ws.db;
  }

  it('duplicate-tool-call is staged, answers, and leaves no TEMP table behind, read whole or left early', async () => {
    const db = await derived();
    expect(queryParts(loadQuery('rules/duplicate-tool-call')).tables).toEqual(['executions', 'not_found', 'first_principals', 'attributed', 'reused', 'first_calls', 'keyed', 'owner_creations', 'left_sessions', 'marker_stream', 'responses', 'closes', 'post_opens', 'session_calls', 'open_sides', 'activated']);
    const before = tempTables(db);
    const rows = [...eachQueryRow<{ session: string; how: string }>(db, 'rules/duplicate-tool-call', opts)];
    expect(rows).toMatchObject([{ session: 'S2', how: 'ended' }]);
    expect(tempTables(db)).toEqual(before);
    for (const row of eachQueryRow(db, 'rules/duplicate-tool-call', opts)) {
      expect(row).toBeDefined();
      break;
    }
    expect(tempTables(db)).toEqual(before);
  });

  it('refuses a TEMP table that would hide a table of the timeline', async () => {
    const db = await derived();
    expect(() => buildStages(db, queryParts('CREATE TEMP TABLE records AS SELECT 1 AS id; SELECT * FROM records'), opts)).toThrow(/hide the timeline's records/);
    expect(db.prepare('SELECT count(*) FROM records').pluck().get()).toBe(lines.length);
  });
});
