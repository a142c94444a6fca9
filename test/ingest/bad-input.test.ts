import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES } from '../../src/read/lines.js';
import { InputError, expandPaths } from '../../src/read/sources.js';
import { isUnusable } from '../../src/store/source-sink.js';
import { T0, chunkSource, ingestSources, ndjson, rows, tempDir } from './support.js';

// What the reader does with inputs that are not plain, well-formed NDJSON:
// each bad line is kept as a rejected line, never dropped and never fatal.

const good = (session: string) => ({ ts: T0, kind: 'session.created', session });

/** A valid record padded to exactly `bytes` bytes. */
function recordOfSize(bytes: number): string {
  const head = `{"ts":"${T0}","kind":"session.created","session":"BIG","pad":"`;
  return head + 'x'.repeat(bytes - head.length - 2) + '"}';
}

describe('a line over the cap (16 MiB)', () => {
  it('is rejected with its line number, and the reader goes on', async () => {
    const text = `${JSON.stringify(good('S1'))}\n${recordOfSize(MAX_LINE_BYTES + 1)}\n${JSON.stringify(good('S2'))}\n`;
    const { db, sources } = await ingestSources([chunkSource([text])]);
    expect(rows(db, 'SELECT line, reason, length(text) <= 200 AS short FROM rejected')).toEqual([{ line: 2, reason: `line longer than ${MAX_LINE_BYTES} bytes`, short: 1 }]);
    expect(rows(db, 'SELECT line, session FROM records')).toEqual([
      { line: 1, session: 'S1' },
      { line: 3, session: 'S2' },
    ]);
    expect(sources[0]).toMatchObject({ lines: 3, recordLines: 2, rejected: 1 });
  });

  it('is rejected when it arrives in many chunks and is the last line', async () => {
    const big = recordOfSize(3 * MAX_LINE_BYTES);
    const chunks = [`${JSON.stringify(good('S1'))}\n`, ...Array.from({ length: Math.ceil(big.length / 65536) }, (_, i) => big.slice(i * 65536, (i + 1) * 65536))];
    const { db } = await ingestSources([chunkSource(chunks)]);
    expect(rows(db, 'SELECT line, reason FROM rejected')).toEqual([{ line: 2, reason: `line longer than ${MAX_LINE_BYTES} bytes` }]);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['no', ''],
  ])('a line of exactly the cap with %s line end is still read', async (_what, end) => {
    const { db } = await ingestSources([chunkSource([`${recordOfSize(MAX_LINE_BYTES)}${end}`])]);
    expect(rows(db, 'SELECT session FROM records')).toEqual([{ session: 'BIG' }]);
  });
});

describe('invalid UTF-8', () => {
  it('rejects the line with the bad bytes, and only that line', async () => {
    const bad = Buffer.concat([Buffer.from(`{"ts":"${T0}","kind":"session.created","session":"S`), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]);
    const { db } = await ingestSources([chunkSource([bad, `${JSON.stringify(good('S2'))}\n`])]);
    expect(rows(db, 'SELECT line, reason FROM rejected')).toEqual([{ line: 1, reason: 'invalid UTF-8' }]);
    expect(rows(db, 'SELECT session FROM records')).toEqual([{ session: 'S2' }]);
  });

  it('accepts a real replacement character, which is valid UTF-8', async () => {
    const { db } = await ingestSources([chunkSource([`${JSON.stringify({ ...good('S\uFFFD'), note: 'caf\u00e9' })}\n`])]);
    expect(rows(db, 'SELECT session FROM records')).toEqual([{ session: 'S\uFFFD' }]);
  });
});

describe('a binary file', () => {
  it('is read as rejected lines naming the NUL bytes, and is unusable', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x01, 0x00]);
    const { db, sources } = await ingestSources([chunkSource([png], 'capture.log')]);
    // The PNG signature holds two line feeds: three lines, each rejected.
    expect(sources[0]!.lines).toBe(3);
    expect(rows(db, 'SELECT line, reason FROM rejected ORDER BY line')).toEqual([
      { line: 1, reason: 'invalid UTF-8' },
      { line: 2, reason: expect.stringMatching(/^invalid JSON/) },
      { line: 3, reason: 'binary content (NUL byte): not a text log line' },
    ]);
    expect(isUnusable(sources[0]!)).toBe(true);
  });
});

describe('gzip', () => {
  const lines = [good('S1'), good('S2')];

  async function ingestFile(name: string, bytes: Buffer) {
    const dir = tempDir();
    writeFileSync(join(dir, name), bytes);
    return ingestSources(expandPaths([join(dir, name)]));
  }

  it('reads a .gz file', async () => {
    const { db } = await ingestFile('server.ndjson.gz', gzipSync(ndjson(lines)));
    expect(rows(db, 'SELECT session FROM records ORDER BY id')).toEqual([{ session: 'S1' }, { session: 'S2' }]);
  });

  it('reads a .gz name that is not gzip as plain text', async () => {
    const { db } = await ingestFile('renamed.ndjson.gz', Buffer.from(ndjson(lines)));
    expect(rows(db, 'SELECT count(*) AS n FROM records')).toEqual([{ n: 2 }]);
  });

  it('reads gzip without the name, by its magic bytes', async () => {
    const { db } = await ingestFile('server.ndjson', gzipSync(ndjson(lines)));
    expect(rows(db, 'SELECT count(*) AS n FROM records')).toEqual([{ n: 2 }]);
  });

  it('reads gzip whose first chunk holds only one byte (a slow pipe)', async () => {
    const gz = gzipSync(ndjson(lines));
    const { db } = await ingestSources([chunkSource([gz.subarray(0, 1), gz.subarray(1)], '<stdin>')]);
    expect(rows(db, 'SELECT count(*) AS n FROM records')).toEqual([{ n: 2 }]);
  });

  it('a gzip cut short keeps the lines before the cut, records the cut as a rejected line, and is unusable', async () => {
    const gz = gzipSync(ndjson(Array.from({ length: 2000 }, (_, i) => good(`S${i}`))));
    const { db, sources } = await ingestFile('cut.ndjson.gz', gz.subarray(0, gz.length - 40));
    const s = sources[0]!;
    expect(s.readError).toMatch(/^gzip: .* after line \d+; the \d+ lines before the cut were kept$/);
    expect(isUnusable(s)).toBe(true);
    expect(s.recordLines).toBeGreaterThan(1000);
    expect(s.lines).toBe(s.recordLines + s.ignored + s.rejected);
    const [cut] = rows<{ line: number; reason: string }>(db, 'SELECT line, reason FROM rejected');
    expect(cut).toEqual({ line: s.recordLines + 1, reason: expect.stringContaining(`cut short after line ${s.recordLines}`) });
  });
});

describe('folders and stdin', () => {
  it('a folder expands to its log files, sorted by name', () => {
    const dir = tempDir();
    for (const f of ['b.jsonl', 'a.ndjson', 'c.log.gz', 'd.json', 'notes.txt', 'e.ndjson.bak']) writeFileSync(join(dir, f), '');
    mkdirSync(join(dir, 'nested'));
    writeFileSync(join(dir, 'nested', 'x.ndjson'), '');
    expect(expandPaths([dir]).map((s) => s.name)).toEqual(['a.ndjson', 'b.jsonl', 'c.log.gz', 'd.json'].map((f) => join(dir, f)));
  });

  it('a folder and a file together are ingested in argument order', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'logs'));
    writeFileSync(join(dir, 'logs', '2.ndjson'), ndjson([good('S2')]));
    writeFileSync(join(dir, 'logs', '1.ndjson.gz'), gzipSync(ndjson([good('S1')])));
    writeFileSync(join(dir, 'extra.ndjson'), ndjson([good('S0')]));
    const { db } = await ingestSources(expandPaths([join(dir, 'extra.ndjson'), join(dir, 'logs')]));
    expect(rows(db, 'SELECT s.name, r.session FROM records r JOIN sources s ON s.id = r.source_id ORDER BY r.id')).toEqual([
      { name: join(dir, 'extra.ndjson'), session: 'S0' },
      { name: join(dir, 'logs', '1.ndjson.gz'), session: 'S1' },
      { name: join(dir, 'logs', '2.ndjson'), session: 'S2' },
    ]);
  });

  it('a folder without log files is an input error naming it', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'readme.txt'), 'hi');
    expect(() => expandPaths([dir])).toThrow(InputError);
    expect(() => expandPaths([dir])).toThrow(dir);
  });

  it('a missing path is an unusable source naming it and why, not an error that stops the others', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'good.ndjson'), ndjson([good('S1')]));
    const sources = expandPaths([join(dir, 'missing.ndjson'), join(dir, 'good.ndjson')]);
    expect(sources.map((s) => s.name)).toEqual([join(dir, 'missing.ndjson'), join(dir, 'good.ndjson')]);
    const { db, sources: stats } = await ingestSources(sources);
    expect(stats[0]!.readError).toBe('cannot read (ENOENT: no such file or folder)');
    expect(rows(db, 'SELECT session FROM records')).toEqual([{ session: 'S1' }]);
  });

  it('- reads stdin, plain or gzip, named <stdin>', async () => {
    for (const bytes of [Buffer.from(ndjson([good('S1')])), gzipSync(ndjson([good('S1')]))]) {
      const sources = expandPaths(['-'], () => Readable.from([bytes]));
      expect(sources.map((s) => s.name)).toEqual(['<stdin>']);
      const { db } = await ingestSources(sources);
      expect(rows(db, 'SELECT s.name, r.session FROM records r JOIN sources s ON s.id = r.source_id')).toEqual([{ name: '<stdin>', session: 'S1' }]);
    }
  });
});

// A writer stopped mid-line (a crash, a copy taken while the file was written) leaves a last line with no
// newline after it: `watch` says "maybe half a line", and analyze's reason says so too.
describe('a last line with no final newline', () => {
  const NOTE = '(the last line, with no final newline: the file may have been cut while it was written)';

  it('is rejected saying the file may have been cut, where it is no record', async () => {
    const text = `${JSON.stringify(good('S1'))}\n${JSON.stringify(good('S2')).slice(0, 30)}`;
    const { db } = await ingestSources([chunkSource([text])]);
    expect(rows(db, 'SELECT line, reason FROM rejected')).toEqual([{ line: 2, reason: expect.stringMatching(/^invalid JSON: .*\(the last line, with no final newline/) }]);
    expect((rows(db, 'SELECT reason FROM rejected')[0] as { reason: string }).reason.endsWith(NOTE)).toBe(true);
  });

  it('near miss: a bad line ended by its newline says nothing of it, and a whole record without one is read', async () => {
    const { db } = await ingestSources([chunkSource([`${JSON.stringify(good('S2')).slice(0, 30)}\n${JSON.stringify(good('S1'))}`])]);
    expect(rows(db, 'SELECT line, reason FROM rejected')).toEqual([{ line: 1, reason: expect.not.stringContaining('final newline') }]);
    expect(rows(db, 'SELECT line, session FROM records')).toEqual([{ line: 2, session: 'S1' }]);
  });
});
