import { describe, expect, it } from 'vitest';
import { NotKnowableSpool } from '../../src/detect/not-knowable-spool.js';
import type { NotKnowable } from '../../src/model/finding.js';
import { sortNotKnowable } from '../../src/render/common.js';
import { openDb } from '../../src/store/db.js';

// What the rules could not judge, set aside while they run and read back for the report, in the
// order every format writes them (render/common.ts sortNotKnowable), without holding them all.

const temps = (db: ReturnType<typeof openDb>) =>
  db.prepare("SELECT count(*) FROM sqlite_temp_master WHERE type = 'table' AND name LIKE 'report_not_knowable%'").pluck().get();

describe('a not-knowable spool', () => {
  it('reads back in report order: catalogue order of rules, then session (none first), then reason', () => {
    const db = openDb(':memory:');
    const spool = NotKnowableSpool.create(db);
    spool.add([
      { rule: 'silent-truncation', session: 'S2', reason: 'proxy log only: b' },
      { rule: 'silent-truncation', session: null, reason: 'no session' },
      { rule: 'silent-truncation', session: 'S10', reason: 'z' },
      { rule: 'silent-truncation', session: 'S10', reason: 'a' },
    ]);
    spool.add([{ rule: 'dual-writer', session: 'S1', reason: 'proxy log only: a' }]);
    spool.add([]);
    const table = spool.seal();
    expect([...table]).toEqual([
      { rule: 'silent-truncation', session: null, reason: 'no session' },
      { rule: 'silent-truncation', session: 'S10', reason: 'a' },
      { rule: 'silent-truncation', session: 'S10', reason: 'z' },
      { rule: 'silent-truncation', session: 'S2', reason: 'proxy log only: b' },
      { rule: 'dual-writer', session: 'S1', reason: 'proxy log only: a' },
    ]);
    expect(table.length).toBe(5);
    table.drop();
    expect(temps(db)).toBe(0);
  });

  it('gives the order sortNotKnowable gives in memory, over many pages and text outside ASCII', () => {
    const db = openDb(':memory:');
    const spool = NotKnowableSpool.create(db);
    const rules = ['silent-fork', 'dual-writer', 'silent-truncation', 'not-a-rule'];
    const sessions = [null, '', 'a', 'B', 'é', '😀', 'ｚ', 'S1', 's1'];
    const items: NotKnowable[] = [];
    for (let i = 0; i < 2000; i++) {
      items.push({ rule: rules[(i * 7) % rules.length]!, session: sessions[(i * 5) % sessions.length]!, reason: `r${(i * 13) % 97}${i % 3 ? '' : '\u{10000}'}` });
    }
    spool.add(items.slice(0, 1200));
    spool.add(items.slice(1200));
    const table = spool.seal();
    expect([...table]).toEqual(sortNotKnowable(items));
    // one rule's by its index, over pages of their own, in the same order
    for (const rule of rules) expect([...table.ofRule(rule)]).toEqual(sortNotKnowable(items).filter((n) => n.rule === rule));
  });

  it('filters to a view that is walked again, not copied, and counts what it keeps', () => {
    const db = openDb(':memory:');
    const spool = NotKnowableSpool.create(db);
    spool.add([
      { rule: 'silent-fork', session: 'A', reason: 'r' },
      { rule: 'silent-fork', session: 'B', reason: 'r' },
      { rule: 'silent-reset', session: 'A', reason: 'r' },
    ]);
    const onlyA = spool.seal().filter((n) => n.session === 'A');
    expect(onlyA.length).toBe(2);
    expect([...onlyA.filter((n) => n.rule === 'silent-reset')]).toEqual([{ rule: 'silent-reset', session: 'A', reason: 'r' }]);
    expect([...onlyA].map((n) => n.rule)).toEqual(['silent-fork', 'silent-reset']);
    expect([...onlyA.ofRule('silent-fork')]).toEqual([{ rule: 'silent-fork', session: 'A', reason: 'r' }]);
  });

  it('keeps two spools of one connection apart', () => {
    const db = openDb(':memory:');
    const [a, b] = [NotKnowableSpool.create(db), NotKnowableSpool.create(db)];
    a.add([{ rule: 'silent-fork', session: 'A', reason: 'r' }]);
    b.add([{ rule: 'silent-reset', session: 'B', reason: 'r' }]);
    expect([...b.seal()].map((n) => n.session)).toEqual(['B']);
    expect([...a.seal()].map((n) => n.session)).toEqual(['A']);
  });
});
