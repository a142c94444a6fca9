import { describe, expect, it } from 'vitest';
import { renderRows, rowsWriter, type RowsFormat } from '../../src/render/rows.js';

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

  it('JSON and CSV are written batch by batch, the same text as the answer rendered whole; a table only at its end', () => {
    const rows = Array.from({ length: 7 }, (_, i) => ({ id: i, at: i % 2 ? null : `t${i}`, big: 2n ** 60n + BigInt(i) }));
    for (const format of ['json', 'csv', 'table'] as RowsFormat[]) {
      const pieces: string[] = [];
      const w = rowsWriter(format, (p) => void pieces.push(p), { columns: ['id', 'at', 'big'] });
      w.write(rows.slice(0, 3));
      w.write([]);
      w.write(rows.slice(3));
      expect(w.written).toBe(format === 'table' ? 0 : 7);
      expect(pieces.length).toBe(format === 'table' ? 0 : 2);
      w.end();
      expect(pieces.join('')).toBe(renderRows(rows, format, { columns: ['id', 'at', 'big'] }));
    }
    expect(JSON.parse(renderRows(rows, 'json').replace(/: (\d{16,})/g, ': "$1"'))[6].big).toBe(String(2n ** 60n + 6n));
  });

  it('writes nothing before the first row: an empty answer is [] or the CSV header, once the answer is whole', () => {
    for (const [format, whole] of [['json', '[]\n'], ['csv', 'id,at\n'], ['table', '(no rows)\n']] as const) {
      const pieces: string[] = [];
      const w = rowsWriter(format, (p) => void pieces.push(p), { columns: ['id', 'at'] });
      w.write([]);
      expect(pieces).toEqual([]);
      w.end();
      expect(pieces.join('')).toBe(whole);
    }
  });
});
