import { describe, expect, it } from 'vitest';
import { FindingTable } from '../../src/detect/finding-table.js';
import type { RawFinding } from '../../src/detect/types.js';
import { sortFindings } from '../../src/render/common.js';
import { openDb } from '../../src/store/db.js';
import { at, workspaceOf } from '../helpers/logs.js';

// A report's findings set down in a table as the rules report them, read back in the
// renderers' timeline order a page at a time, and narrowed without copying them.

const raw = (rule: string, session: string | null, ms: number, message: string, evidenceIds: number[] = []): RawFinding => ({
  rule, session, atMs: Date.parse(at(ms)), message, evidenceIds,
});

function tableOf(...byRule: RawFinding[][]): FindingTable {
  const table = FindingTable.create(openDb(':memory:'));
  for (const findings of byRule) table.add(findings);
  return table.seal();
}

describe('a finding table', () => {
  it('reads findings back in the order sortFindings gives them, ties in the order their rule reported them', () => {
    const table = tableOf(
      [raw('silent-truncation', 'S2', 20, 'b'), raw('silent-truncation', 'S2', 20, 'a'), raw('silent-truncation', 'S2', 20, 'a', [7])],
      [raw('dual-writer', 'S1', 20, 'z'), raw('dual-writer', null, 20, 'z'), raw('dual-writer', 'S1', 10, 'z')],
      // U+FF5E sorts before an astral character by code point, after it by UTF-16 code unit.
      [raw('404-storm', '\u{1F600}', 30, 'm'), raw('404-storm', '\uFF5E', 30, 'm')],
    );
    const read = [...table];
    const keys = (fs: typeof read) => fs.map((f) => `${f.at.slice(17, 23)} ${f.rule} ${f.session} ${f.message}`);
    expect(keys(read)).toEqual([
      '00.010 dual-writer S1 z',
      '00.020 dual-writer null z',
      '00.020 dual-writer S1 z',
      '00.020 silent-truncation S2 a',
      '00.020 silent-truncation S2 a',
      '00.020 silent-truncation S2 b',
      '00.030 404-storm \uFF5E m',
      '00.030 404-storm \u{1F600} m',
    ]);
    // The in-memory renderers sort to the same order.
    expect(keys(sortFindings(read.slice().reverse()))).toEqual(keys(read));
    expect(table.length).toBe(8);
    expect(Object.fromEntries(table.countByRule())).toEqual({ 'silent-truncation': 3, 'dual-writer': 3, '404-storm': 2 });
    expect([...table.ofRule('dual-writer')].map((f) => f.session)).toEqual(['S1', null, 'S1']);
    expect([...table.ofRule('replay-on-attach')]).toEqual([]);
  });

  it('counts per rule the findings on given sessions after each one\'s own time, in the view\'s narrowing, as an array of them counts', async () => {
    const { countFollowing } = await import('../../src/findings/recount.js');
    const table = tableOf(
      [raw('404-storm', 'S1', 30, 'a'), raw('404-storm', 'S2', 30, 'b'), raw('404-storm', 'S3', 30, 'c')],
      [raw('engine-divergence', 'S1', 10, 'at the loss itself'), raw('engine-divergence', 'S1', 5, 'before'), raw('engine-divergence', null, 40, 'no session')],
    );
    const lost = [{ session: 'S1', after_ms: Date.parse(at(9)) }, { session: 'S2', after_ms: Date.parse(at(30)) }];
    expect(Object.fromEntries(table.countByRuleOn(lost))).toEqual({ '404-storm': 1, 'engine-divergence': 1 });
    expect(countFollowing([...table], lost)).toEqual(countFollowing(table, lost));
    const narrowed = table.filter((f) => f.rule === 'engine-divergence');
    expect(Object.fromEntries(narrowed.countByRuleOn(lost))).toEqual({ 'engine-divergence': 1 });
    expect(narrowed.countByRuleOn([]).size).toBe(0);
  });

  it('keeps the order of two findings alike in time, rule, session and message: the first reported is read first', async () => {
    const ws = await workspaceOf([0, 1].map((i) => ({ ts: at(i), kind: 'session.created', session: `S${i}` })));
    const [first, second] = ws.db.prepare('SELECT id FROM records ORDER BY line').pluck().all() as [number, number];
    for (const order of [[second, first], [first, second]]) {
      const table = FindingTable.create(ws.db);
      table.add(order.map((id) => raw('silent-truncation', 'S1', 5, 'same', [id])));
      const lines = order.map((id) => (id === first ? 1 : 2));
      expect([...table.seal()].map((f) => f.evidence[0]!.line)).toEqual(lines);
    }
    ws.db.close();
  });

  it('resolves the evidence of every finding across pages, in log order', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => ({ ts: at(1000 - i), kind: 'session.created', session: `S${i}` }));
    const ws = await workspaceOf(lines);
    const ids = ws.db.prepare('SELECT id FROM records ORDER BY line').pluck().all() as number[];
    const table = FindingTable.create(ws.db);
    // 1,300 findings: more than two pages. Each cites lines k+1 and k+2 of the log, the later line first.
    const findings = Array.from({ length: 1300 }, (_, k) => raw('session-id-reuse', `S${k % 40}`, k, `f${String(k).padStart(4, '0')}`, [ids[(k + 1) % 40]!, ids[k % 40]!]));
    table.add(findings);
    const read = [...table.seal()];
    expect(read).toHaveLength(1300);
    expect(read.map((f) => f.message)).toEqual(findings.map((f) => f.message));
    // Lines were logged newest first (ts 1000 - i): the later line is the earlier time.
    read.forEach((f, k) => expect(f.evidence.map((e) => e.line), f.message).toEqual(k % 40 === 39 ? [40, 1] : [(k % 40) + 2, (k % 40) + 1]));
    ws.db.close();
  });

  it('narrows to a new view and leaves the view it came from as it was', () => {
    const table = tableOf([raw('dual-writer', 'S1', 1, 'a'), raw('dual-writer', 'S2', 2, 'b'), raw('dual-writer', 'S3', 3, 'c')], [raw('404-storm', 'S2', 4, 'd')]);
    const s2 = table.filter((f) => f.session === 'S2');
    expect([...s2].map((f) => f.message)).toEqual(['b', 'd']);
    expect(Object.fromEntries(s2.countByRule())).toEqual({ 'dual-writer': 1, '404-storm': 1 });
    const storms = s2.filter((f) => f.rule === '404-storm');
    expect([...storms].map((f) => f.message)).toEqual(['d']);
    expect([...s2].map((f) => f.message)).toEqual(['b', 'd']);
    expect([...table].map((f) => f.message)).toEqual(['a', 'b', 'c', 'd']);
    expect(table.length).toBe(4);
    // A second narrowing of an older view would mark rows the newer one reads.
    expect(() => table.filter(() => true)).toThrow(/newest view/);
  });

  it('leaves nothing behind once dropped, and refuses a read after', () => {
    const db = openDb(':memory:');
    const table = FindingTable.create(db);
    table.add([raw('dual-writer', 'S1', 1, 'a')]);
    const view = table.seal().filter(() => true);
    table.drop();
    expect(db.prepare("SELECT count(*) FROM temp.sqlite_master WHERE type = 'table'").pluck().get()).toBe(0);
    expect(() => [...view]).toThrow(/after their table was dropped/);
  });

  it('is read only once sealed, and takes no finding after', () => {
    const table = FindingTable.create(openDb(':memory:'));
    table.add([raw('dual-writer', 'S1', 1, 'a')]);
    expect(() => [...table]).toThrow(/before the report was sealed/);
    table.seal();
    expect(() => table.add([raw('dual-writer', 'S1', 1, 'a')])).toThrow(/after the report was sealed/);
  });
});
