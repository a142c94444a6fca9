import { describe, expect, it } from 'vitest';
import { STORED_RECORD_JSON, storedRow } from '../../src/replay/stored-record.js';
import { at, workspaceOf } from '../helpers/logs.js';

// The replay reads records as JSON arrays (sparse columns packed in a nested
// array); each row must come back exactly as the plain columns hold it.
const COLUMNS =
  'id, ts_ms, kind, origin, session, incarnation, node, stream, sequence, conn, principal, via, reason, aspect, log_evicted, ' +
  'event_id, rpc_kind, rpc_id, method, attached, oldest_retained, last_event_id, new_stream, decision, status, ' +
  'replayed, first_replayed, replayed_ids, new_session, reset_signalled, request_id, new_request_id, protocol_version, tool, executed, priming, http_method';

describe('storedRow', () => {
  it('gives every column of every record its stored value and type', async () => {
    const ws = await workspaceOf([
      { ts: at(0), kind: 'session.created', session: 'S1', incarnation: 'i1', principal: 'tok:a', node: 'n1', protocol_version: '2025-11-25' },
      { ts: at(1), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', conn: 'c1', sequence: 'q1' },
      { ts: at(2), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 7, rpc_kind: 'request', rpc_id: 3, method: 'sampling/createMessage', attached: false, priming: true },
      { ts: at(3), kind: 'request.sent', session: 'S1', stream: 'g1', request_id: 3, method: 'sampling/createMessage', event_id: '7' },
      { ts: at(4), kind: 'buffer.trimmed', session: 'S1', stream: 'g1', oldest_retained: '0007' },
      {
        ts: at(5), kind: 'upgrade', session: 'S1', last_event_id: '007', stream: 'g1', new_stream: 'g2', decision: 'resume',
        status: 200, replayed: 1, first_replayed: 7, replayed_ids: [7, 'x8'], conn: 'c2', reset_signalled: true,
      },
      { ts: at(5), kind: 'call', session: 'S1', rpc_id: 9, method: 'tools/call', tool: 'echo', status: 200, executed: false },
      { ts: at(6), kind: 'request.reissued', session: 'S1', request_id: 3, new_request_id: 'r-4', stream: 'g2' },
      { ts: at(7), kind: 'session.terminated', session: 'S1', reason: 'client DELETE' },
      // a proxy line: its http record and the upgrade read from it carry the method
      { ts: at(8), kind: 'http', method: 'GET', path: '/mcp', status: 405, req_headers: { 'mcp-session-id': 'S1', 'last-event-id': '9' }, resp_headers: {} },
    ]);
    try {
      const plain = ws.db.prepare(`SELECT ${COLUMNS} FROM records ORDER BY id`).all();
      const compact = (ws.db.prepare(`SELECT ${STORED_RECORD_JSON} FROM records ORDER BY id`).pluck().all() as string[]).map((j) => storedRow(JSON.parse(j) as unknown[]));
      expect(plain.length).toBe(11);
      expect(compact).toStrictEqual(plain);
    } finally {
      ws.db.close();
    }
  });
});
