import { describe, expect, it } from 'vitest';
import { FactTable } from '../../src/detect/fact-table.js';
import { ReconnectFacts } from '../../src/detect/facts/reconnect-facts.js';
import type { ReconnectRow } from '../../src/detect/facts/reconnects.js';
import type { RuleModule } from '../../src/detect/rule.js';
import { RULES } from '../../src/detect/rules/index.js';
import { detect } from '../../src/pipeline/derived.js';
import { DEFAULT_DETECT_OPTIONS } from '../../src/detect/types.js';
import { deriveTimeline } from '../../src/store/derive.js';
import { loadQuery, queryParts } from '../../src/store/queries.js';
import type { Db } from '../../src/store/db.js';
import { at, workspaceOf, type LogLine } from '../helpers/logs.js';

// The reconnects and served upgrades the first nine rules share are kept by
// SQLite in temporary tables and read one row at a time (at 3M lines they were
// hundreds of MB as objects). What the rules read must be what the query gave.

const opts = DEFAULT_DETECT_OPTIONS;
const lines = [
  { ts: at(0), kind: 'session.created', session: 'S1' },
  { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' },
  { ts: at(20), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: '007' },
  { ts: at(30), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: '008' },
  { ts: at(40), kind: 'upgrade', session: 'S1', stream: 'g1', new_stream: 'g2', last_event_id: '007', decision: 'resume', status: 200, replayed: 1, first_replayed: '008' },
  { ts: at(50), kind: 'upgrade', session: 'S1', stream: 'g2', new_stream: 'g3', last_event_id: '008', decision: 'resume', status: 200, replayed: 0 },
];

async function derived(): Promise<Db> {
  const ws = await workspaceOf(lines);
  deriveTimeline(ws.db);
  return ws.db;
}

const factTables = (db: Db) =>
  (db.prepare("SELECT name FROM sqlite_temp_master WHERE type = 'table' AND name LIKE 'fact_%'").all() as { name: string }[]).map((r) => r.name);
/** The report's own temporary tables (its findings, its not-knowables) left in the connection. */
const reportTables = (db: Db) => db.prepare("SELECT name FROM sqlite_temp_master WHERE type = 'table' AND name LIKE 'report_%'").pluck().all();

describe('fact tables', () => {
  it('give the rows in the query order, with the values as the query gave them (an id 007 stays text)', async () => {
    const db = await derived();
    const table = new FactTable<ReconnectRow>(db, 'facts/reconnect-references', opts);
    const rows = [...table.rows()];
    expect(rows.map((r) => [r.role, r.event_id])).toEqual([
      ['last_event_id', '007'],
      ['first_replayed', '008'],
      ['last_event_id', '008'],
    ]);
    // read again: the same rows
    expect([...table.rows()]).toEqual(rows);
  });

  it('give every row of a fact longer than one read, in order, a JSON column still as text', async () => {
    // 300 resumptions, each naming its Last-Event-ID and a replayed_ids list: 600 rows, more than one read's worth.
    const many: LogLine[] = [{ ts: at(0), kind: 'session.created', session: 'S1' }, { ts: at(1), kind: 'stream.opened', session: 'S1', stream: 's0', via: 'get' }];
    for (let i = 0; i < 300; i++) {
      many.push({ ts: at(10 + i * 10), kind: 'event.sent', session: 'S1', stream: `s${i}`, event_id: `0${i}` });
      many.push({
        ts: at(15 + i * 10), kind: 'upgrade', session: 'S1', stream: `s${i}`, new_stream: `s${i + 1}`, last_event_id: `0${i}`,
        decision: 'resume', status: 200, replayed: 1, replayed_ids: [`0${i}`],
      });
    }
    const ws = await workspaceOf(many);
    deriveTimeline(ws.db);
    const table = new FactTable<ReconnectRow>(ws.db, 'facts/reconnect-references', opts);
    const rows = [...table.rows()];
    const direct = ws.db.prepare(`SELECT * FROM temp.${table.name} ORDER BY seq`).all() as ({ seq: number } & ReconnectRow)[];
    expect(rows).toHaveLength(600);
    expect(rows).toEqual(direct.map(({ seq: _, ...row }) => row));
    expect(rows.filter((r) => r.role === 'replayed_ids').map((r) => r.event_id)).toEqual(Array.from({ length: 300 }, (_, i) => `0${i}`));
    expect(typeof rows[0]!.replayed_ids).toBe('string');
  });

  it('set a staged query apart without the TEMP tables its stages built', async () => {
    const db = await derived();
    expect(queryParts(loadQuery('facts/reconnect-references')).tables).toContain('served');
    const table = new FactTable<ReconnectRow>(db, 'facts/reconnect-references', opts);
    const temp = db.prepare("SELECT name FROM sqlite_temp_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all();
    expect(temp).toEqual([table.name]);
    expect([...table.rows()]).toHaveLength(3);
  });

  it('look rows up by an indexed column, and refuse a read once dropped', async () => {
    const db = await derived();
    const table = new FactTable<ReconnectRow>(db, 'facts/reconnect-references', opts).indexOn('up_id');
    const second = [...table.rows()][2]!.up_id;
    expect([...table.where('up_id', second)].map((r) => r.event_id)).toEqual(['008']);
    table.drop();
    expect(factTables(db)).toEqual([]);
    expect(() => [...table.rows()]).toThrow(/read after it was dropped/);
  });

  it('make reconnects read one at a time, and looked up by upgrade while another read is open', async () => {
    const db = await derived();
    const facts = ReconnectFacts.of(db, opts);
    const ids = [...facts.reconnects].map((r) => r.last.eventId);
    expect(ids).toEqual(['007', '008']);
    const nested = [...facts.resumptions].map((r) => facts.reconnectOf(r.upgradeId)?.replays.map((x) => x.eventId));
    expect(nested).toEqual([['008'], []]);
    expect(facts.reconnectOf(-1)).toBeUndefined();
  });

  it('are all dropped by the end of a run, also when a rule throws', async () => {
    const db = await derived();
    detect(db);
    expect(factTables(db)).toEqual([]);
    // The report's findings and not-knowables too, once detect() took them into memory.
    expect(reportTables(db)).toEqual([]);
    const failing = { ...RULES[8]!, detect: () => { throw new Error('rule failed'); } } as RuleModule;
    expect(() => detect(db, { rules: [...RULES.slice(0, 8), failing] })).toThrow('rule failed');
    expect(factTables(db)).toEqual([]);
    expect(reportTables(db)).toEqual([]);
  });
});
