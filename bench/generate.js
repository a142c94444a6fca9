// Writes a realistic resumption log of N lines: many sessions, GET streams,
// events, resumptions with correct counters, server requests and answers, calls.
import { createWriteStream } from 'node:fs';

export async function generate(path, lines) {
  const out = createWriteStream(path);
  const base = Date.parse('2026-11-09T10:00:00.000Z');
  let n = 0;
  let t = 0;
  const write = (rec) => {
    n++;
    const ok = out.write(JSON.stringify({ ts: new Date(base + t).toISOString(), ...rec }) + '\n');
    return ok ? null : new Promise((r) => out.once('drain', r));
  };
  for (let s = 0; n < lines; s++) {
    const session = `sess-${s}`;
    const node = `node-${s % 4}`;
    t += 3;
    await write({ kind: 'session.created', session, incarnation: `i-${s}`, principal: `tok:${s % 97}`, node });
    await write({ kind: 'stream.opened', session, stream: 'g1', via: 'get', conn: `c${s}`, node });
    let eid = 0;
    let stream = 'g1';
    for (let k = 0; k < 4 && n < lines; k++) {
      for (let e = 0; e < 8; e++) {
        t += 1;
        eid++;
        await write({ kind: 'event.sent', session, stream, event_id: eid, rpc_kind: 'notification', method: 'notifications/progress', node });
      }
      t += 1;
      eid++;
      const rid = `r-${s}-${k}`;
      await write({ kind: 'event.sent', session, stream, event_id: eid, rpc_kind: 'request', rpc_id: rid, method: 'sampling/createMessage', node });
      await write({ kind: 'request.sent', session, stream, request_id: rid, method: 'sampling/createMessage', event_id: eid, node });
      await write({ kind: 'request.answered', session, request_id: rid, status: 202, node });
      await write({ kind: 'call', session, rpc_id: k, method: 'tools/call', tool: 'lookup', args_hash: `h${s}-${k}`, status: 200, node });
      await write({ kind: 'stream.closed', session, stream, reason: 'error', node });
      const next = `g${k + 2}`;
      t += 2;
      await write({ kind: 'upgrade', session, last_event_id: eid, stream, new_stream: next, decision: 'resume', status: 200, replayed: 0, reemitted: 0, node });
      await write({ kind: 'stream.opened', session, stream: next, via: 'get', conn: `c${s}-${k}`, node });
      stream = next;
    }
    await write({ kind: 'session.terminated', session, reason: 'client_delete', node });
  }
  await new Promise((r) => out.end(r));
  return n;
}
