import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { splitLines } from '../../src/read/entries.js';
import { MAX_LINE_BYTES, type InputLine } from '../../src/read/lines.js';
import { analyzeFiles } from '../../src/api.js';
import { lineTextResolver } from '../../src/detect/evidence.js';
import { T0, chunkSource, ingestSources, rows, tempDir } from './support.js';

// Every input line is exactly one of record, ignored or rejected, and the
// sources row says so: lines = record_lines + ignored + rejected.

const rec = (session: string) => JSON.stringify({ ts: T0, kind: 'session.created', session });
const app = JSON.stringify({ level: 'info', msg: 'hello' });

async function countsOf(bytes: Buffer | string, chunks = 1) {
  const buf = Buffer.from(bytes);
  const size = Math.ceil(buf.length / chunks) || 1;
  const parts: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) parts.push(buf.subarray(i, i + size));
  const { db, sources } = await ingestSources([chunkSource(parts)]);
  const [row] = rows<{ lines: number; record_lines: number; ignored: number; rejected: number; records: number }>(
    db,
    'SELECT lines, record_lines, ignored, rejected, records FROM sources',
  );
  expect(row!.lines).toBe(row!.record_lines + row!.ignored + row!.rejected);
  expect(sources[0]).toMatchObject({ lines: row!.lines, recordLines: row!.record_lines, ignored: row!.ignored, rejected: row!.rejected });
  return row!;
}

describe('line counting', () => {
  it.each([
    ['newline-terminated', `${rec('S1')}\n${app}\n{bad\n`, { lines: 3, record_lines: 1, ignored: 1, rejected: 1 }],
    ['a last line without newline', `${rec('S1')}\n${rec('S2')}`, { lines: 2, record_lines: 2, ignored: 0, rejected: 0 }],
    ['a last bad line without newline', `${rec('S1')}\n{bad`, { lines: 2, record_lines: 1, ignored: 0, rejected: 1 }],
    ['CRLF line ends', `${rec('S1')}\r\n${app}\r\n${rec('S2')}\r\n`, { lines: 3, record_lines: 2, ignored: 1, rejected: 0 }],
    ['CRLF without a final line end', `${rec('S1')}\r\n${rec('S2')}`, { lines: 2, record_lines: 2, ignored: 0, rejected: 0 }],
    ['blank lines between and after', `\n${rec('S1')}\n\n  \n${rec('S2')}\n\n`, { lines: 6, record_lines: 2, ignored: 4, rejected: 0 }],
    ['blank CRLF lines', `${rec('S1')}\r\n\r\n`, { lines: 2, record_lines: 1, ignored: 1, rejected: 0 }],
    ['an empty file', '', { lines: 0, record_lines: 0, ignored: 0, rejected: 0 }],
    ['a lone newline', '\n', { lines: 1, record_lines: 0, ignored: 1, rejected: 0 }],
  ])('%s', async (_what, text, expected) => {
    expect(await countsOf(text)).toMatchObject(expected);
  });

  it('a proxy line that yields several records is one record line', async () => {
    const http = JSON.stringify({ ts: T0, kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'S1' }, resp_headers: {} });
    expect(await countsOf(`${http}\n`)).toMatchObject({ lines: 1, record_lines: 1, records: 2 });
  });

  it('bad bytes are counted as rejected lines', async () => {
    const bytes = Buffer.concat([Buffer.from(`${rec('S1')}\n`), Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]), Buffer.from('a\0b\n'), Buffer.from(`${rec('S2')}`)]);
    expect(await countsOf(bytes)).toMatchObject({ lines: 4, record_lines: 2, rejected: 2 });
  });

  it('a gzip file counts its decompressed lines', async () => {
    expect(await countsOf(gzipSync(`${rec('S1')}\r\n\r\n${app}`))).toMatchObject({ lines: 3, record_lines: 1, ignored: 2 });
  });

  it('CRLF records keep no carriage return in the line quoted, read from the spool or stored', async () => {
    const { db } = await ingestSources([chunkSource([`${rec('S1')}\r\n`])]);
    expect(lineTextResolver(db)({ file: 'chunks.ndjson', line: 1 })).toBe(rec('S1'));
    const kept = await ingestSources([chunkSource([`${rec('S1')}\r\n`])], { db: join(tempDir(), 'kept.db') });
    expect(rows(kept.db, 'SELECT raw FROM records')).toEqual([{ raw: rec('S1') }]);
  });

  it('record lines keep their physical line numbers across blank and bad lines', async () => {
    const { db } = await ingestSources([chunkSource([`\r\n{bad\r\n${app}\r\n${rec('S1')}`])]);
    expect(rows(db, 'SELECT line FROM records')).toEqual([{ line: 4 }]);
    expect(rows(db, 'SELECT line FROM rejected')).toEqual([{ line: 2 }]);
  });
});

describe('the report', () => {
  it('counts records, ignored and rejected lines of every file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.ndjson'), `${rec('S1')}\n${app}\n{bad\n`);
    writeFileSync(join(dir, 'b.ndjson.gz'), gzipSync(`${rec('S2')}\r\n\r\n${JSON.stringify({ ts: T0, kind: 'nope' })}`));
    const report = await analyzeFiles([join(dir, 'a.ndjson'), join(dir, 'b.ndjson.gz')]);
    expect(report.summary).toMatchObject({ records: 2, ignored_lines: 2, rejected_lines: 2, sessions: 2 });
  });
});

describe('the report of a proxy log', () => {
  it('counts the http records the log holds, not what is inferred from them', async () => {
    const dir = tempDir();
    const http = (extra: object) => JSON.stringify({ ts: T0, kind: 'http', method: 'GET', path: '/mcp', status: 200, ...extra });
    writeFileSync(join(dir, 'proxy.ndjson'), [
      http({ req_headers: { 'mcp-session-id': 'S1', 'last-event-id': '4' }, resp_headers: { 'content-type': 'text/event-stream' }, node: 'edge-1' }),
      http({ req_headers: { 'mcp-session-id': 'S1' }, resp_headers: { 'content-type': 'text/event-stream' }, node: 'edge-1' }),
      app,
    ].join('\n'));
    const report = await analyzeFiles([join(dir, 'proxy.ndjson')]);
    // Each line is one record; the resume and attach read from them are the analyzer's, not the input's.
    expect(report.summary).toMatchObject({ records: 2, ignored_lines: 1, rejected_lines: 0, nodes: { 'edge-1': { records: 2 } } });
  });
});

describe('chunk boundaries', () => {
  // Whatever chunks the bytes arrive in, the lines are the same: CR/LF pairs,
  // multi-byte characters and long lines may all straddle a chunk boundary.
  const text = `${rec('S1')}\r\n\r\n{"ts":"${T0}","msg":"héllo ✓ 𝄞"}\n{"x":1}\r\n${'z'.repeat(300)}\nlast`;
  const bytes = Buffer.from(text);

  async function linesOf(chunks: Buffer[]): Promise<InputLine[]> {
    const out: InputLine[] = [];
    for await (const l of splitLines((async function* () { yield* chunks; })())) out.push(l);
    return out;
  }

  it('gives the same lines for every way of cutting the bytes', async () => {
    const whole = await linesOf([bytes]);
    expect(whole.map((l) => ('text' in l ? l.text : l.error))).toEqual(text.split(/\r?\n/));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }), async (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), bytes.length];
        const chunks = points.slice(1).map((end, i) => bytes.subarray(points[i], end));
        expect(await linesOf(chunks)).toEqual(whole);
      }),
      { numRuns: 200 },
    );
  });

  it('judges NUL bytes, bad UTF-8, a BOM and long lines alike whether a line comes whole or byte by byte', async () => {
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(`${rec('S1')}\r\n`),
      Buffer.from('{"a":"\\u0000"}\n'),
      Buffer.from([0x7b, 0x00, 0x7d, 0x0a]),
      Buffer.from([0x22, 0xff, 0xfe, 0x22, 0x0a]),
      Buffer.from('"\uFFFD is a real character"\n'),
      Buffer.from(`"${'x'.repeat(MAX_LINE_BYTES)}"\n`),
      Buffer.from(`${rec('S2')}\n`),
    ]);
    const whole = await linesOf([bytes]);
    expect(whole.map((l) => ('text' in l ? 'text' : l.error))).toEqual([
      'text', 'text', 'binary content (NUL byte): not a text log line', 'invalid UTF-8', 'text',
      `line longer than ${MAX_LINE_BYTES} bytes`, 'text',
    ]);
    expect(whole[0]).toEqual({ line: 1, text: rec('S1'), offset: 3, bytes: rec('S1').length });
    // Byte by byte, every line takes the per-line path: the fast path must agree with it.
    const small = bytes.subarray(0, bytes.length - rec('S2').length - 1 - MAX_LINE_BYTES - 3);
    const bytewise = await linesOf([...small].map((b) => Buffer.from([b])));
    expect(bytewise).toEqual(whole.slice(0, bytewise.length));
    expect(await linesOf([bytes.subarray(0, 7), bytes.subarray(7)])).toEqual(whole);
  });

  // `cat a.ndjson b.ndjson` of two Windows exports: b's byte order mark starts a line in the middle.
  it('takes a byte order mark off any line, not the first only, whole or byte by byte', async () => {
    const bytes = Buffer.concat([Buffer.from(`${rec('S1')}\n`), Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${rec('S2')}\n`)]);
    const whole = await linesOf([bytes]);
    expect(whole).toEqual([
      { line: 1, text: rec('S1'), offset: 0, bytes: rec('S1').length },
      { line: 2, text: rec('S2'), offset: rec('S1').length + 4, bytes: rec('S2').length },
    ]);
    expect(await linesOf([...bytes].map((b) => Buffer.from([b])))).toEqual(whole);
  });

  // Windows PowerShell's `>` and `Out-File` write UTF-16LE: each line's NULs are its encoding, not binary content.
  it('names UTF-16 text as such, and leaves other NUL bytes binary content', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${rec('S1')}\n${rec('S2')}\n`, 'utf16le')]);
    const lines = await linesOf([utf16]);
    expect(lines.map((l) => ('error' in l ? l.error : l.text))).toEqual([
      'UTF-16 text (byte order mark FF FE), not UTF-8: convert the file to UTF-8 (iconv -f UTF-16 -t UTF-8)',
      'UTF-16 text (every other byte NUL), not UTF-8: convert the file to UTF-8 (iconv -f UTF-16 -t UTF-8)',
      'UTF-16 text (the second byte of a UTF-16 newline), not UTF-8: convert the file to UTF-8 (iconv -f UTF-16 -t UTF-8)',
    ]);
    const binary = await linesOf([Buffer.from([0x7b, 0x00, 0x00, 0x7d, 0x41, 0x42, 0x0a])]);
    expect(binary.map((l) => ('error' in l ? l.error : l.text))).toEqual(['binary content (NUL byte): not a text log line']);
  });

  it('marks the last line when no newline ends it, and no other', async () => {
    const lines = await linesOf([Buffer.from(`${rec('S1')}\n{"ts":`)]);
    expect(lines.map((l) => 'unterminated' in l)).toEqual([false, true]);
    expect((await linesOf([Buffer.from(`${rec('S1')}\n{"ts":\n`)])).map((l) => 'unterminated' in l)).toEqual([false, false]);
  });

  it('counts the same when the bytes arrive one at a time', async () => {
    expect(await countsOf(text, Buffer.byteLength(text))).toMatchObject({ lines: 6, record_lines: 1, ignored: 3, rejected: 2 });
  });
});
