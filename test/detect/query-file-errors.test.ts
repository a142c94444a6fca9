import { describe, expect, it, vi } from 'vitest';
import { openDb } from '../../src/store/db.js';

// A contributor's report: a typo in queries/rules/dual-writer.sql stopped the run with
// "resumescope: near "SELEC": syntax error", naming neither the file nor the rule.

vi.mock('../../src/store/queries.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/store/queries.js')>();
  const broken: Record<string, string> = {
    'rules/typo': 'SELEC session FROM records',
    'rules/no-column': 'SELECT r.aspectt AS session FROM records r',
  };
  return { ...real, loadQuery: (name: string) => broken[name] ?? real.loadQuery(name) };
});

const { queryRows } = await import('../../src/detect/query-rows.js');
const { DEFAULT_DETECT_OPTIONS } = await import('../../src/detect/types.js');

describe('a query file SQLite cannot compile', () => {
  it('is said of its file', () => {
    const db = openDb();
    expect(() => queryRows(db, 'rules/typo', DEFAULT_DETECT_OPTIONS)).toThrow(/^queries\/rules\/typo\.sql: near "SELEC": syntax error$/);
    expect(() => queryRows(db, 'rules/no-column', DEFAULT_DETECT_OPTIONS)).toThrow(/^queries\/rules\/no-column\.sql: no such column: r\.aspectt$/);
  });

  it('near miss: a query that compiles runs', () => {
    const db = openDb();
    expect(queryRows(db, 'rules/dual-writer', DEFAULT_DETECT_OPTIONS)).toEqual([]);
  });
});
