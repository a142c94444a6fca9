import { describe, expect, it } from 'vitest';
import { renderRows } from '../../src/render/rows.js';

// `query`'s output: a table for a terminal, JSON and CSV for programs.

describe('renderRows', () => {
  it('a table: columns padded to their widest cell, long cells cut, rows counted', () => {
    const out = renderRows([{ id: 1, session: 'S1' }, { id: 22, session: 'x'.repeat(100) }], 'table').split('\n');
    expect(out[0]).toBe('id  session');
    expect(out[2]).toBe('1   S1');
    expect(out[3]).toBe(`22  ${'x'.repeat(79)}…`);
    expect(out.at(-2)).toBe('(2 rows)');
  });

  it('a table of more rows than a function call takes arguments (--max-rows raised)', () => {
    const rows = Array.from({ length: 300_000 }, (_, i) => ({ id: i }));
    const out = renderRows(rows, 'table');
    expect(out.endsWith('(300000 rows)\n')).toBe(true);
    expect(out.split('\n')[1]).toBe('------');
  });

  it('JSON keeps values exact; CSV quotes as RFC 4180 says, its text printable as the table\'s', () => {
    const rows = [{ raw: 'a,"b"\nc', n: null }];
    expect(JSON.parse(renderRows(rows, 'json'))).toEqual(rows);
    expect(renderRows(rows, 'csv')).toBe('raw,n\n"a,""b""\\u000ac",\n');
  });
});
