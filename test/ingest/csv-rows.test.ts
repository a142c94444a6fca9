import { describe, expect, it } from 'vitest';
import { CSV_LINE_COLUMNS, csvCells, csvExportStart } from '../../src/read/csv-rows.js';
import { CSV_NOT_READ } from '../../src/read/entries.js';
import { shippedLine } from '../../src/normalize/envelopes.js';
import { iso, load } from '../formats/rows.js';
import { gzippedRecords, linesOf } from './export-files.js';

// A log console's CSV download (Splunk's "Export results", CloudWatch Logs Insights', Kibana's CSV
// report, Azure Log Analytics'): a header naming the columns, then a row per log line, the server's
// line in one quoted cell. With --csv each row is read as the line its cell holds.

const created = { ts: '2026-11-09T10:00:00.100Z', kind: 'session.created', session: 'S1', node: 'mcp-a' };
const opened = { ts: '2026-11-09T10:00:00.200Z', kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', node: 'mcp-a' };
const closed = { ts: '2026-11-09T10:00:00.300Z', kind: 'stream.closed', session: 'S1', stream: 'g1', node: 'mcp-a', note: 'a "quoted", comma\'d note' };
const cell = (v: string) => `"${v.replace(/"/g, '""')}"`;
/** Splunk's CSV export of a search: _time, host, _raw (CRLF, as RFC 4180 writes rows). */
const splunk = (recs: object[]) => ['_time,host,_raw', ...recs.map((r) => `2026-11-09T10:00:09.000+00:00,web-3,${cell(JSON.stringify(r))}`)].join('\r\n') + '\r\n';
const C = { csv: true };

const rowsOf = (got: Awaited<ReturnType<typeof load>>) => got.rows.map(({ line: _l, ...r }) => r);

const lines = (text: string | Buffer, chunkBytes?: number) => linesOf(text, C, chunkBytes);

describe('a CSV download, without --csv', () => {
  it('is unusable, as log-format.md reads a line per record, and its header says how to read it', async () => {
    const got = await load([splunk([created, opened]).trimEnd()]);
    expect(got.stats).toMatchObject({ records: 0, firstProblem: { line: 1, reason: CSV_NOT_READ } });
    expect(got.rejected[0]).toEqual({ line: 1, reason: CSV_NOT_READ });
  });
});

describe('a CSV download, with --csv', () => {
  it("reads each row's line as the record it holds, its quotes, commas and doubled quotes undone", async () => {
    const plain = await load([created, opened, closed]);
    const got = await load([splunk([created, opened, closed]).trimEnd()], C);
    expect(rowsOf(got)).toEqual(rowsOf(plain));
    expect(got.stats).toMatchObject({ lines: 4, records: 3, ignored: 1, rejected: 0 });
  });

  it('cuts the same rows whatever the chunks the bytes come in, a byte at a time included', async () => {
    const text = `\ufeff${splunk([created, opened, closed])}`;
    const whole = await lines(text);
    expect(whole.map((l) => l.line)).toEqual([1, 2, 3, 4]);
    for (const size of [1, 7, 64]) expect(await lines(text, size)).toEqual(whole);
  });

  it('reads a cell that spans lines (a pretty-printed line), numbered by the line its row starts on', async () => {
    const text = ['@timestamp,@message,@logStream', `2026-11-09 10:00:00.100,${cell(JSON.stringify(created, null, 2))},ecs/mcp/0a1b`, `2026-11-09 10:00:00.200,${cell(JSON.stringify(opened))},ecs/mcp/0a1b`].join('\n');
    const got = await lines(text);
    expect(got.map((l) => l.line)).toEqual([1, 2, 8]);
    const records = await load([text], C);
    expect(records.rows.map((r) => [r.line, r.kind])).toEqual([
      [2, 'session.created'],
      [8, 'stream.opened'],
    ]);
  });

  it("takes the row's time and node where the record has none: CloudWatch Logs Insights' log stream, Kibana's host.name, Azure's PodName and TimeGenerated [UTC]", async () => {
    const { ts: _ts, node: _n, ...bare } = opened;
    const insights = ['@timestamp,@message,@logStream', `2026-11-09T10:00:05.5Z,${cell(JSON.stringify(bare))},ecs/mcp/0a1b`].join('\n');
    const kibana = ['"@timestamp","host.name",message', `"2026-11-09T10:00:06.250Z","web-1",${cell(JSON.stringify(bare))}`].join('\n');
    const azure = ['TimeGenerated [UTC],PodName,LogMessage', `2026-11-09T10:00:07.000Z,mcp-6c4b8-p9m2z,${cell(JSON.stringify(bare))}`].join('\n');
    for (const [text, at, node] of [
      [insights, '2026-11-09T10:00:05.500Z', 'ecs/mcp/0a1b'],
      [kibana, '2026-11-09T10:00:06.250Z', 'web-1'],
      [azure, '2026-11-09T10:00:07.000Z', 'mcp-6c4b8-p9m2z'],
    ] as const) {
      const got = await load([text], C);
      expect(got.rows.map((r) => [iso(r.ts_ms), r.node]), text.split('\n')[0]).toEqual([[at, node]]);
    }
  });

  it('reads a gzipped download, and rejects a row whose cells do not match the header, or whose quote never ends, a line at a time', async () => {
    expect(await gzippedRecords('export.csv.gz', splunk([created, opened]), C)).toEqual([[2, 'session.created'], [3, 'stream.opened']]);
    const text = ['_time,host,_raw', `x,web-3,${cell(JSON.stringify(created))},extra`, `x,web-3,${cell(JSON.stringify(opened))}`, 'x,web-3,"{""ts"":', 'cut short'].join('\n');
    const got = await load([text], C);
    expect(got.rows.map((r) => r.kind)).toEqual(['stream.opened']);
    expect(got.rejected).toEqual([
      { line: 2, reason: 'a CSV row of 4 cells under a header of 3' },
      { line: 4, reason: 'in a CSV row whose quoted cell does not end' },
      { line: 5, reason: 'in a CSV row whose quoted cell does not end' },
    ]);
    expect(got.stats).toMatchObject({ lines: 5, ignored: 1, rejected: 3, records: 1 });
  });

  it('reads a quote inside an unquoted cell as its text, so the rows after it are read', async () => {
    const { node: _n, ...bare } = opened;
    const text = ['_time,host,_raw', `x,web"3,${cell(JSON.stringify(bare))}`, `x,web-3,${cell(JSON.stringify(closed))}`].join('\n');
    const got = await load([text], C);
    expect(got.rows.map((r) => [r.line, r.kind, r.node])).toEqual([
      [2, 'stream.opened', 'web"3'],
      [3, 'stream.closed', 'mcp-a'],
    ]);
    expect(got.stats).toMatchObject({ lines: 3, ignored: 1, rejected: 0, records: 2 });
  });

  it('rejects each line of a row whose open quote another line closed before text, so that the count of lines stays whole', async () => {
    // A quote that opens a cell, closed on the next line and followed by text: the quotes close, but no row.
    const text = ['_time,host,_raw', 'x,web-3,"no line', 'either" tail', `x,web-3,${cell(JSON.stringify(opened))}`].join('\n');
    const got = await load([text], C);
    expect(got.rejected).toEqual([
      { line: 2, reason: 'a CSV row whose quotes do not close where a cell ends' },
      { line: 3, reason: 'a CSV row whose quotes do not close where a cell ends' },
    ]);
    expect(got.rows.map((r) => r.kind)).toEqual(['stream.opened']);
    expect(got.stats).toMatchObject({ lines: 4, ignored: 1, rejected: 2, records: 1 });
  });
});

describe('telling a CSV download from lines', () => {
  it('is a header with a comma naming a column that carries the line; undefined until the first line is whole', () => {
    expect(csvExportStart(Buffer.from('_time,host,_raw\r\n'), false)).toBe(true);
    expect(csvExportStart(Buffer.from('"@timestamp","@message"\n'), false)).toBe(true);
    expect(csvExportStart(Buffer.from('TimeGenerated [UTC],LogMessage'), false)).toBe(undefined);
    expect(csvExportStart(Buffer.from('TimeGenerated [UTC],LogMessage'), true)).toBe(true);
  });

  it('near misses: an NDJSON line, a text log with commas, a CSV of other columns, a single column', () => {
    expect(csvExportStart(Buffer.from(`${JSON.stringify({ ...created, message: 'a, b' })}\n`), false)).toBe(false);
    expect(csvExportStart(Buffer.from('2026-11-09 10:00:00,123 INFO message, more\n'), false)).toBe(false);
    expect(csvExportStart(Buffer.from('time,level,text\n'), false)).toBe(false);
    expect(csvExportStart(Buffer.from('message\n'), false)).toBe(false);
  });

  it('cuts cells as RFC 4180 says, and refuses text after a closing quote', () => {
    expect(csvCells('a,"b,c","d""e",,')).toEqual(['a', 'b,c', 'd"e', '', '']);
    expect(csvCells('"a"b,c')).toBeUndefined();
    expect(csvCells('"a,b')).toBeUndefined();
  });

  it('every column it takes for a line is one the normalizer reads a line from', () => {
    for (const column of CSV_LINE_COLUMNS) expect(shippedLine({ [column]: JSON.stringify(created) }), column).toBeDefined();
  });
});
