import { describe, expect, it } from 'vitest';
import { JSON_ARRAY_NOT_READ } from '../../src/read/entries.js';
import { jsonExportStart } from '../../src/read/json-array.js';
import { shippedLine } from '../../src/normalize/envelopes.js';
import { iso, load } from '../formats/rows.js';
import { linesOf } from './export-files.js';

// An Elasticsearch or OpenSearch search answer saved as it came (`curl 'es:9200/filebeat-*/_search?pretty'`,
// Kibana's Dev Tools): the hits are `hits.hits`, each a document whose `_source` is what the shipper
// made of the line. With --json-array each hit is read as a line, the answer's other members as none.

const created = { ts: '2026-11-09T10:00:00.100Z', kind: 'session.created', session: 'S1', node: 'mcp-a' };
const opened = { ts: '2026-11-09T10:00:00.200Z', kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', node: 'mcp-a' };
const closed = { ts: '2026-11-09T10:00:00.300Z', kind: 'stream.closed', session: 'S1', stream: 'g1', node: 'mcp-a' };
const A = { jsonArray: true };

/** A hit of a Filebeat data stream: the line as `message`, or (`decoded`) the fields its parser decoded. */
const hit = (rec: object, n: number, decoded = false) => ({
  _index: '.ds-filebeat-8.15.3-2026.11.09-000001',
  _id: `k2Jq8pMB${n}`,
  _score: null,
  _source: decoded ? { '@timestamp': '2026-11-09T10:00:09Z', ...rec } : { '@timestamp': '2026-11-09T10:00:09Z', message: JSON.stringify(rec), host: { name: 'web-1' } },
  sort: [1794218400100 + n],
});
/** As Elasticsearch answers a search, pretty-printed as `?pretty` prints it (`"key" : value`). */
const answer = (hits: object[], extra: object = {}) => ({
  took: 7,
  timed_out: false,
  _shards: { total: 3, successful: 2, skipped: 0, failed: 1, failures: [{ shard: 1, reason: { type: 'x', reason: 'a "hits": [ in a reason' } }] },
  hits: { total: { value: hits.length, relation: 'eq' }, max_score: null, hits },
  ...extra,
});
const pretty = (o: object) => JSON.stringify(o, null, 2).replace(/": /g, '" : ');

const rowsOf = (got: Awaited<ReturnType<typeof load>>) => got.rows.map(({ line: _l, ...r }) => r);

describe('a search answer, with --json-array', () => {
  it('reads each hit as the line its _source carries (or is), on the line the hit starts; the rest of the answer is no line', async () => {
    const plain = await load([created, opened, closed]);
    const text = pretty(answer([hit(created, 1), hit(opened, 2, true), hit(closed, 3)], { aggregations: { per_host: { buckets: [{ key: 'web-1', doc_count: 3 }] } } }));
    const got = await load([text], A);
    expect(rowsOf(got).map(({ node: _n, ...r }) => r)).toEqual(rowsOf(plain).map(({ node: _n, ...r }) => r));
    expect(got.stats).toMatchObject({ lines: 3, records: 3, rejected: 0, ignored: 0 });
    // Each hit starts where its `{` is, in the array after `"hits" : [` (the shard failure's object before it is none).
    const after = text.split('\n').indexOf('    "hits" : [');
    const starts = text.split('\n').flatMap((l, i) => (i > after && l === '      {' ? [i + 1] : []));
    expect(got.rows.map((r) => r.line)).toEqual(starts);
  });

  it('cuts the same hits whatever the chunks the bytes come in, a byte at a time included', async () => {
    const text = pretty(answer([hit(created, 1), hit(opened, 2)]));
    const whole = await linesOf(text, A);
    expect(whole).toHaveLength(2);
    for (const size of [1, 5, 64]) expect(await linesOf(text, A, size)).toEqual(whole);
  });

  it('reads answers written one after another (the pages of a scroll), and one cut to its hits (filter_path)', async () => {
    const pages = [answer([hit(created, 1)]), answer([hit(opened, 2)]), answer([hit(closed, 3)])].map((a) => JSON.stringify(a));
    expect((await load([pages.join('\n')], A)).rows.map((r) => r.kind)).toEqual(['session.created', 'stream.opened', 'stream.closed']);
    // A page cut or doubled at its end (a stray brace) does not cost the pages after it.
    expect((await load([`${pages[0]}}\n${pages[1]}`], A)).rows.map((r) => r.kind)).toEqual(['session.created', 'stream.opened']);
    const filtered = JSON.stringify({ hits: { hits: [{ _source: hit(created, 1)._source }, { _source: hit(opened, 2)._source }] } });
    const got = await load([filtered], A);
    expect(got.rows.map((r) => [r.kind, iso(r.ts_ms), r.node])).toEqual([
      ['session.created', '2026-11-09T10:00:00.100Z', 'mcp-a'],
      ['stream.opened', '2026-11-09T10:00:00.200Z', 'mcp-a'],
    ]);
  });

  it('without --json-array is unusable, and its first line says how to read it', async () => {
    expect((await load([pretty(answer([hit(created, 1)]))])).rejected[0]).toEqual({ line: 1, reason: JSON_ARRAY_NOT_READ });
  });

  it('is told by its first member: the time as a number, or the hits as an object; near misses are lines', () => {
    expect(jsonExportStart(Buffer.from('{\n  "took" : 7,\n'))).toBe('hits');
    expect(jsonExportStart(Buffer.from('{"hits":{"hits":['))).toBe('hits');
    expect(jsonExportStart(Buffer.from('{\n  "to'))).toBe(undefined);
    expect(jsonExportStart(Buffer.from('{"took": "7 ms", "kind": "call"}\n'))).toBe(false);
    expect(jsonExportStart(Buffer.from('{"hits": 3, "kind": "call"}\n'))).toBe(false);
    expect(jsonExportStart(Buffer.from('{"tookit": 1}\n'))).toBe(false);
  });
});

describe("Datadog's logs search answer, with --json-array", () => {
  /** A log event as the logs search API answers it: Datadog parsed the JSON line into the event's own attributes. */
  const event = (rec: Record<string, unknown>, n: number) => ({
    id: `AQAAAZ${n}`,
    type: 'log',
    attributes: { timestamp: '2026-11-09T10:00:09.000Z', host: 'web-1', service: 'mcp', status: 'info', tags: ['env:prod', 'service:mcp'], attributes: rec },
  });
  const answer = (data: object[]) => ({ data, links: { next: 'https://api.datadoghq.com/api/v2/logs/events?page%5Bcursor%5D=eyJhZnRlciI6' }, meta: { page: { after: 'eyJhZnRlciI6' }, elapsed: 132, status: 'done' } });

  it("reads each event's parsed line as its record, the event's time and host where the record has none", async () => {
    const { ts: _ts, node: _n, ...bare } = opened;
    // An event Datadog could not parse (a text prefix) keeps the line as its message.
    const text = { id: 'AQAAAZ3', type: 'log', attributes: { timestamp: '2026-11-09T10:00:10.000Z', host: 'web-2', message: JSON.stringify(closed), attributes: {} } };
    const got = await load([JSON.stringify(answer([event(created, 1), event(bare, 2), text]), null, 2)], A);
    expect(got.rows.map((r) => [r.kind, iso(r.ts_ms), r.node])).toEqual([
      ['session.created', '2026-11-09T10:00:00.100Z', 'mcp-a'],
      ['stream.closed', '2026-11-09T10:00:00.300Z', 'mcp-a'],
      ['stream.opened', '2026-11-09T10:00:09.000Z', 'web-1'],
    ]);
    expect(got.stats).toMatchObject({ lines: 3, records: 3, rejected: 0, ignored: 0 });
  });

  it("gives a pino record back the msg Datadog moved out to the event's message", async () => {
    // pino names the kind in `msg`; Datadog's preprocessing hoists it to the event's reserved `message`.
    const pino = (rec: Record<string, unknown>, n: number) => {
      const { kind, ...rest } = rec;
      const e = event({ level: 30, ...rest }, n);
      return { ...e, attributes: { ...e.attributes, message: kind } };
    };
    const got = await load([JSON.stringify(answer([pino(created, 1), pino(opened, 2)]))], A);
    expect(got.rows.map((r) => [r.kind, r.session])).toEqual([
      ['session.created', 'S1'],
      ['stream.opened', 'S1'],
    ]);
    expect(got.stats).toMatchObject({ lines: 2, records: 2, ignored: 0 });
  });

  it("near miss: a record that names its kind keeps it, whatever the event's message says", async () => {
    const e = event(created, 1);
    const got = await load([JSON.stringify(answer([{ ...e, attributes: { ...e.attributes, message: 'stream.closed' } }]))], A);
    expect(got.rows.map((r) => r.kind)).toEqual(['session.created']);
  });

  it('near misses: a data member that is no array, and an object typed log with no parsed attributes, are what they are', () => {
    expect(jsonExportStart(Buffer.from('{"data": {"kind": "session.created"}}\n'))).toBe(false);
    expect(jsonExportStart(Buffer.from('{\n  "data": [\n'))).toBe('data');
    expect(shippedLine({ type: 'log', attributes: { host: 'web-1', message: 'GET /health 200', attributes: {} } })).toBeUndefined();
    expect(shippedLine({ type: 'log', attributes: { host: 'web-1', message: 'GET /health 200' } })).toBeUndefined();
  });
});
