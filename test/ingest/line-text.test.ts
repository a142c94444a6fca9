import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import { lineTextResolver } from '../../src/detect/evidence.js';
import { fileSource } from '../../src/read/sources.js';
import { storedContext } from '../../src/tui/wire/open-line.js';
import { chunkSource } from './support.js';
import type { Db } from '../../src/store/db.js';

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

const stored = (db: Db) =>
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

  it('quotes stdin and a gzip file from their spool in the run\'s folder, with no copy stored, and removes it at close', async () => {
    const gz = write('log.ndjson.gz', gzipSync(LINES[0] + '\n'));
    const stdin = { name: '<stdin>', path: null, open: () => Readable.from([Buffer.from(LINES[2] + '\n')]) };
    const ws = await loadWorkspace([fileSource(gz), stdin]);
    expect(stored(ws.db)).toEqual([{ line: 1, copied: 0, placed: 1 }, { line: 1, copied: 0, placed: 1 }]);
    const text = lineTextResolver(ws.db);
    expect(text({ file: gz, line: 1 })).toBe(LINES[0]);
    expect(text({ file: '<stdin>', line: 1 })).toBe(LINES[2]);
    const spools = (ws.db.prepare('SELECT path FROM sources ORDER BY id').all() as { path: string }[]).map((r) => r.path);
    expect(spools.map((p) => basename(p))).toEqual(['spool-0.log', 'spool-1.log']);
    expect(spools.every((p) => existsSync(p))).toBe(true);
    ws.db.close();
    expect(spools.some((p) => existsSync(dirname(p)))).toBe(false);
  });

  it('keeps the lines of a stdin cut short, with its error, as before it was spooled', async () => {
    const whole = gzipSync(LINES[0] + '\n' + LINES[2] + '\n' + LINES[2] + '\n');
    const stdin = chunkSource([whole.subarray(0, whole.length - 12)], '<stdin>');
    const ws = await loadWorkspace([stdin]);
    expect(ws.sources[0]!.readError).toMatch(/gzip/);
    expect(ws.sources[0]!.recordLines).toBeGreaterThan(0);
    expect(lineTextResolver(ws.db)({ file: '<stdin>', line: 1 })).toBe(LINES[0]);
    ws.db.close();
  });

  it('copies every line of a --db file, stdin and gzip files too: it quotes them after the logs are gone', async () => {
    const plain = write('kept.ndjson', LINES[2] + '\n');
    const gz = write('kept.ndjson.gz', gzipSync(LINES[0] + '\n'));
    // stdin's own lines: the files' lines again would be repeats, read once
    const other = (line: string) => line.replace('"S1"', '"S2"');
    const stdin = { name: '<stdin>', path: null, open: () => Readable.from([Buffer.from(other(LINES[0]!) + '\n' + other(LINES[2]!) + '\n')]) };
    const { db } = await loadWorkspace([fileSource(plain), fileSource(gz), stdin], { db: join(dir, 'kept.db') });
    expect(stored(db)).toEqual([1, 1, 1, 2].map((line) => ({ line, copied: 1, placed: 1 })));
    writeFileSync(plain, 'rotated\n');
    rmSync(gz);
    expect(lineTextResolver(db)({ file: plain, line: 1 })).toBe(LINES[2]);
    expect(lineTextResolver(db)({ file: gz, line: 1 })).toBe(LINES[0]);
    db.close();
  });

  it('copies a line of several records (an OTLP export request) once, on its first record, and quotes it for each', async () => {
    const attr = (key: string, v: string) => ({ key, value: { stringValue: v } });
    const record = (i: number) => ({
      timeUnixNano: String((Date.parse('2026-11-09T10:00:00Z') + i) * 1e6),
      attributes: [attr('kind', 'event.sent'), attr('session', 'S1'), attr('stream', 'g1'), attr('event_id', String(i))],
    });
    const request = (ids: number[]) => JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: ids.map(record) }] }] });
    const [first, line] = [request([1]), request([2, 3, 4])];
    const plain = write('otlp.ndjson', first + '\n' + line + '\n');
    const { db } = await loadWorkspace([fileSource(plain)], { db: join(dir, 'otlp.db') });
    const copies = db.prepare('SELECT line, count(*) AS records, count(raw) AS copies, sum(length(raw)) AS chars FROM records GROUP BY line ORDER BY line').all();
    expect(copies).toEqual([{ line: 1, records: 1, copies: 1, chars: first.length }, { line: 2, records: 3, copies: 1, chars: line.length }]);
    writeFileSync(plain, 'rotated\n');
    expect(lineTextResolver(db)({ file: plain, line: 2 })).toBe(line);
    expect(storedContext(db, { file: plain, line: 2 })).toEqual([{ line: 1, text: first }, { line: 2, text: line }]);
    db.close();
  });
});
