import { describe, expect, it } from 'vitest';
import { NotKnowableSpool } from '../../src/detect/not-knowable-spool.js';
import { openDb } from '../../src/store/db.js';

// What the rules could not judge, set aside while they run and read back for the report.

describe('a not-knowable spool', () => {
  it('gives back every one in the order added, a missing session as null, and drops its table', () => {
    const db = openDb(':memory:');
    const spool = NotKnowableSpool.create(db);
    spool.add([
      { rule: 'silent-truncation', session: 'S2', reason: 'proxy log only: b' },
      { rule: 'silent-truncation', session: null, reason: 'no session' },
    ]);
    spool.add([{ rule: 'dual-writer', session: 'S1', reason: 'proxy log only: a' }]);
    spool.add([]);
    expect(spool.takeAll()).toEqual([
      { rule: 'silent-truncation', session: 'S2', reason: 'proxy log only: b' },
      { rule: 'silent-truncation', session: null, reason: 'no session' },
      { rule: 'dual-writer', session: 'S1', reason: 'proxy log only: a' },
    ]);
    expect(db.prepare("SELECT count(*) FROM sqlite_temp_master WHERE name LIKE 'report_not_knowable%'").pluck().get()).toBe(0);
  });

  it('keeps two spools of one connection apart', () => {
    const db = openDb(':memory:');
    const [a, b] = [NotKnowableSpool.create(db), NotKnowableSpool.create(db)];
    a.add([{ rule: 'silent-fork', session: 'A', reason: 'r' }]);
    b.add([{ rule: 'silent-reset', session: 'B', reason: 'r' }]);
    expect(b.takeAll().map((n) => n.session)).toEqual(['B']);
    expect(a.takeAll().map((n) => n.session)).toEqual(['A']);
  });
});
