import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/api.js';
import { SourceIngest } from '../../src/pipeline/ingest.js';
import { expandPaths } from '../../src/read/sources.js';
import { openDb, type Db } from '../../src/store/db.js';
import { summarize } from '../../src/detect/summary.js';
import { at, logSource } from '../helpers/logs.js';
import { rows, track } from './support.js';

// node_records is counted as records are stored, so that summary.nodes and lost-sessions.sql read a few rows
// instead of the whole records table. It must say what the records table says, however the lines came:
// several files and nodes, proxies (whose inferred records are not input), batches of a followed file.

/** What node_records holds per node, and the same read from the records themselves. */
function counted(db: Db): { tally: unknown[]; records: unknown[] } {
  return {
    tally: rows(
      db,
      `SELECT node, sum(records) AS records, max(last_ms) AS last_ms,
         (SELECT last_id FROM node_records x WHERE x.node IS n.node ORDER BY x.last_ms DESC, x.last_id DESC LIMIT 1) AS last_id
       FROM node_records n GROUP BY node ORDER BY node`,
    ),
    records: rows(
      db,
      `SELECT node, sum(origin = 'server' OR kind = 'http') AS records, max(CASE WHEN origin = 'server' THEN ts_ms END) AS last_ms,
         (SELECT r.id FROM records r WHERE r.node IS g.node AND r.origin = 'server' ORDER BY r.ts_ms DESC, r.id DESC LIMIT 1) AS last_id
       FROM records g GROUP BY node ORDER BY node`,
    ),
  };
}

describe('node_records, counted as records are stored', () => {
  for (const sample of ['samples/multi-node', 'samples/proxy', 'samples/sdk', 'samples/writers.ndjson', 'samples/node-restart.ndjson']) {
    it(`says what the records say: ${sample}`, async () => {
      const ws = await loadWorkspace(expandPaths([sample]));
      const db = track(ws.db);
      const { tally, records } = counted(db);
      expect(tally.length).toBeGreaterThan(0);
      expect(tally).toEqual(records);
    });
  }

  it('a proxy\'s inferred records are not input: its http records count, the reconnect read from them does not', async () => {
    const ws = await loadWorkspace([
      logSource([
        { ts: at(0), kind: 'session.created', session: 'S1', node: 'a' },
        {
          ts: at(1000), kind: 'http', node: 'edge', method: 'GET', path: '/mcp', status: 200, duration_ms: 5,
          req_headers: { 'mcp-session-id': 'S1', 'last-event-id': '4' }, resp_headers: { 'content-type': 'text/event-stream' },
        },
      ]),
    ]);
    const db = track(ws.db);
    // the proxy host names its http record only: the upgrade read from it was answered by a server node it does not name
    expect(rows(db, "SELECT count(*) AS n FROM records WHERE node = 'edge'")).toEqual([{ n: 1 }]);
    expect(summarize(db).nodes).toEqual({ a: { records: 1 }, edge: { records: 1 } });
    // a node whose records are all a proxy's has no last server record
    expect(rows(db, "SELECT last_ms FROM node_records WHERE node = 'edge'")).toEqual([{ last_ms: null }]);
  });

  it('a followed file\'s batches replace its rows, each batch adding to the counts before it', () => {
    const db = track(openDb(':memory:'));
    const ingest = new SourceIngest(db, 'live.ndjson', { complete: false });
    const batch = (lines: object[], from: number) =>
      db.transaction(() => {
        lines.forEach((l, i) => ingest.add({ line: from + i, text: JSON.stringify(l) }));
        ingest.finish(null);
      })();
    batch([{ ts: at(0), kind: 'session.created', session: 'S1', node: 'a' }, { ts: at(10), kind: 'session.created', session: 'S2', node: 'b' }], 1);
    batch([{ ts: at(20), kind: 'session.created', session: 'S3', node: 'a' }], 3);
    expect(rows(db, 'SELECT node, records, last_ms FROM node_records ORDER BY node')).toEqual([
      { node: 'a', records: 2, last_ms: Date.parse(at(20)) },
      { node: 'b', records: 1, last_ms: Date.parse(at(10)) },
    ]);
    const { tally, records } = counted(db);
    expect(tally).toEqual(records);
  });
});
