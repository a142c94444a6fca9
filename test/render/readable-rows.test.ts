import { describe, expect, it } from 'vitest';
import { readableRowsWriter, type EvidenceLines } from '../../src/render/readable-rows.js';
import { schemaText } from '../../src/render/schema-text.js';
import type { SchemaTable } from '../../src/store/schema-docs.js';

// `query`'s rows as a person reads them, and `query --schema`: formatting only, the store's answers handed in.

const LINES: Record<number, string> = { 7: 'a.ndjson:3', 9: 'b.ndjson:12' };
const evidenceLines: EvidenceLines = (ids) => ({
  get: (id) => (ids.includes(id) && LINES[id] !== undefined ? { ref: { file: LINES[id]!.split(':')[0]!, line: Number(LINES[id]!.split(':')[1]) } } : undefined),
});

function written(format: 'table' | 'json' | 'csv', columns: string[], rows: Record<string, unknown>[]): string {
  const pieces: string[] = [];
  const w = readableRowsWriter(format, (p) => void pieces.push(p), { wide: false, evidenceLines });
  w.columns(columns);
  w.rows(rows);
  w.end();
  return pieces.join('');
}

describe('readableRowsWriter', () => {
  it('names the file:line of each evidence record id, and puts an at time beside at_ms', () => {
    const out = JSON.parse(written('json', ['rule', 'at_ms', 'evidence'], [{ rule: 'dual-writer', at_ms: 1794218402000n, evidence: '[7,null,9,404]' }])) as unknown[];
    expect(out).toEqual([{ rule: 'dual-writer', at: '2026-11-09T10:00:02.000Z', at_ms: 1794218402000, evidence: 'a.ndjson:3 b.ndjson:12' }]);
  });

  it('leaves an evidence cell that is not a list of ids as it is, and an at_ms that is no time NULL', () => {
    const out = JSON.parse(written('json', ['at_ms', 'evidence'], [{ at_ms: 'soon', evidence: '[7,"x"]' }, { at_ms: null, evidence: '[not json' }])) as unknown[];
    expect(out).toEqual([
      { at: null, at_ms: 'soon', evidence: '[7,"x"]' },
      { at: null, at_ms: null, evidence: '[not json' },
    ]);
  });

  it('adds the at column to the header of an answer with no rows', () => {
    expect(written('csv', ['session', 'at_ms'], [])).toBe('session,at,at_ms\n');
  });

  it('counts the rows written as they come (JSON), none before a table ends', () => {
    const json = readableRowsWriter('json', () => {}, { wide: false, evidenceLines });
    json.columns(['id']);
    json.rows([{ id: 1 }, { id: 2 }]);
    expect(json.written).toBe(2);
    const table = readableRowsWriter('table', () => {}, { wide: false, evidenceLines });
    table.columns(['id']);
    table.rows([{ id: 1 }]);
    expect(table.written).toBe(0);
  });
});

describe('schemaText', () => {
  const tables: SchemaTable[] = [
    { name: 'records', type: 'table', temp: false, about: 'one row per record', columns: [{ name: 'id', type: 'INTEGER', about: 'the record' }, { name: 'session', type: 'TEXT', about: undefined }] },
    { name: 'evil\u001b[2J', type: 'view', temp: true, about: undefined, columns: [{ name: 'x\u001b[31m', type: '', about: undefined }] },
  ];

  it('a table to read: each table with its columns aligned, names a hostile --db chose made printable', () => {
    const out = schemaText(tables, 'table');
    expect(out).toContain('records (table): one row per record\n  id       INTEGER  the record\n  session  TEXT\n');
    expect(out).toContain('(temp view): ');
    expect(out).not.toContain('\u001b');
  });

  it('CSV: a row per column, NULL where a column has no meaning written', () => {
    expect(schemaText(tables.slice(0, 1), 'csv')).toBe('table,column,type,about\nrecords,id,INTEGER,the record\nrecords,session,TEXT,\n');
  });

  it('JSON: the tables as the store describes them', () => {
    expect(JSON.parse(schemaText(tables.slice(0, 1), 'json'))).toEqual([{ name: 'records', type: 'table', temp: false, about: 'one row per record', columns: [{ name: 'id', type: 'INTEGER', about: 'the record' }, { name: 'session', type: 'TEXT' }] }]);
  });
});
