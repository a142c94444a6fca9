import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { loadWorkspace } from '../../src/api.js';
import { splitLines, type Splitting } from '../../src/read/entries.js';
import type { InputLine } from '../../src/read/lines.js';
import type { Source } from '../../src/read/sources.js';

// What the JSON array and CSV export tests ask of a file alike.

/** The lines (entries, rows) a stream is cut into, its bytes coming `chunkBytes` at a time (default: all at once). */
export async function linesOf(text: string | Buffer, splitting: Splitting, chunkBytes?: number): Promise<InputLine[]> {
  const buf = Buffer.from(text);
  const parts = chunkBytes === undefined ? [buf] : Array.from({ length: Math.ceil(buf.length / chunkBytes) }, (_, i) => buf.subarray(i * chunkBytes, (i + 1) * chunkBytes));
  const out: InputLine[] = [];
  for await (const l of splitLines(Readable.from(parts), undefined, splitting)) out.push(l);
  return out;
}

/** Each record's line and kind, of the export gzipped (read from a stream: its text is stored). */
export async function gzippedRecords(name: string, text: string, splitting: Splitting): Promise<unknown[][]> {
  const zipped: Source = { name, path: null, open: () => Readable.from([gzipSync(text)]) };
  const ws = await loadWorkspace([zipped], splitting);
  try {
    return ws.db.prepare('SELECT line, kind FROM records ORDER BY id').raw().all() as unknown[][];
  } finally {
    ws.db.close();
  }
}
