import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import { lineTextResolver } from '../../src/detect/evidence.js';
import { fileSource } from '../../src/read/sources.js';
import { openDb } from '../../src/store/db.js';
import { ingestAll } from '../../src/pipeline/ingest.js';

// A one-off run keeps where a plain file's lines are, not copies, and quotes evidence from the file:
// the quote must be the line as logged (or as redacted), and never a wrong line once the file changed.

const dir = mkdtempSync(join(tmpdir(), 'rs-line-text-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'sk-live-0123456789abcdefSECRET';
const LINES = [
  '{"ts":"2026-11-09T10:00:00.000Z","kind":"session.created","session":"S1","note":"é日本"}',
  `{"ts":"2026-11-09T10:00:00.010Z","kind":"stream.opened","session":"S1","stream":"g1","via":"get","req_headers":{"authorization":"Bearer ${SECRET}"}}`,
  '{"ts":"2026-11-09T10:00:01.000Z","kind":"event.sent","session":"S1","stream":"g1","event_id":"1"}',
];

function write(name: string, body: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
}

const stored = (db: ReturnType<typeof openDb>) =>
  db.prepare('SELECT line, raw IS NOT NULL AS copied, line_offset IS NOT NULL AS placed FROM records ORDER BY line').all();

describe('quoting lines of a one-off run', () => {
  it('reads a plain file at the offsets: a BOM, CRLF and multi-byte text quote as logged, with no copy stored', async () => {
    const path = write('plain.ndjson', '\uFEFF' + [LINES[0], LINES[2]].join('\r\n') + '\r\n');
    const ws = await loadWorkspace([fileSource(path)]);
    expect(stored(ws.db)).toEqual([{ line: 1, copied: 0, placed: 1 }, { line: 2, copied: 0, placed: 1 }]);
    const text = lineTextResolver(ws.db);
    expect(text({ file: path, line: 1 })).toBe(LINES[0]);
    expect(text({ file: path, line: 2 })).toBe(LINES[2]);
    ws.db.close();
  });

  it('stores a line that held a credential as its redacted text, and never quotes the secret from the file', async () => {
    const path = write('secret.ndjson', LINES.join('\n') + '\n');
    const ws = await loadWorkspace([fileSource(path)]);
    expect(stored(ws.db)).toEqual([{ line: 1, copied: 0, placed: 1 }, { line: 2, copied: 1, placed: 0 }, { line: 3, copied: 0, placed: 1 }]);
    const quoted = lineTextResolver(ws.db)({ file: path, line: 2 })!;
    expect(quoted).toContain('stream.opened');
    expect(quoted).not.toContain(SECRET);
    ws.db.close();
  });

  it('quotes nothing from a file that changed after it was read, rather than a wrong line', async () => {
    const path = write('grows.ndjson', LINES[0] + '\n' + LINES[2] + '\n');
    const ws = await loadWorkspace([fileSource(path)]);
    appendFileSync(path, LINES[2] + '\n');
    const text = lineTextResolver(ws.db);
    expect(text({ file: path, line: 1 })).toBeUndefined();
    ws.db.close();
  });

  it('copies the lines of stdin, a gzip file and any input of a --db file', async () => {
    const gz = write('log.ndjson.gz', gzipSync(LINES[0] + '\n'));
    const plain = write('kept.ndjson', LINES[2] + '\n');
    const stdin = { name: '<stdin>', path: null, open: () => Readable.from([Buffer.from(LINES[2] + '\n')]) };
    const ws = await loadWorkspace([fileSource(gz), stdin]);
    expect(stored(ws.db)).toEqual([{ line: 1, copied: 1, placed: 1 }, { line: 1, copied: 1, placed: 1 }]);
    expect(lineTextResolver(ws.db)({ file: gz, line: 1 })).toBe(LINES[0]);
    ws.db.close();
    const db = openDb(join(dir, 'kept.db'));
    await ingestAll(db, [fileSource(plain)]);
    expect(stored(db)).toEqual([{ line: 1, copied: 1, placed: 1 }]);
    writeFileSync(plain, 'rotated\n');
    expect(lineTextResolver(db)({ file: plain, line: 1 })).toBe(LINES[2]);
    db.close();
  });
});
