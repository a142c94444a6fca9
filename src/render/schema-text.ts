import { printable } from '../model/printable.js';
import type { SchemaTable } from '../store/schema-docs.js';
import { renderRows, type RowsFormat } from './rows.js';

/**
 * `query --schema`: the tables and views a query sees, with what each column holds, as a table
 * to read, CSV (a row per column) or JSON (the tables as store/schema-docs.ts describes them).
 */
export function schemaText(tables: SchemaTable[], format: RowsFormat): string {
  if (format === 'json') return renderRows(tables as unknown as Record<string, unknown>[], 'json');
  if (format === 'csv') {
    const rows = tables.flatMap((t) => t.columns.map((c) => ({ table: t.name, column: c.name, type: c.type, about: c.about ?? null })));
    return renderRows(rows, 'csv', { columns: ['table', 'column', 'type', 'about'] });
  }
  const out = [
    'Times (*_ms, *_ts) are epoch milliseconds, UTC; *_id columns that name a record are records.id; 0/1 are booleans.',
    'Temp views are made by each query\'s connection and are never written to a --db file.',
    '',
  ];
  for (const t of tables) {
    out.push(`${printable(t.name)} (${t.temp ? 'temp ' : ''}${t.type}): ${t.about ?? ''}`);
    const name = Math.max(...t.columns.map((c) => c.name.length));
    const type = Math.max(...t.columns.map((c) => c.type.length));
    // A --db file's names are SQLite's, which a hostile file could choose: printable, as any value.
    for (const c of t.columns) out.push(`  ${printable(c.name.padEnd(name))}  ${printable(c.type.padEnd(type))}  ${c.about ?? ''}`.trimEnd());
    out.push('');
  }
  return out.join('\n');
}
