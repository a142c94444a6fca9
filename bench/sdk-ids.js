// The `sdk-ids` shape: the production mix with its ids minted as the
// TypeScript SDK mints them, not as short counters. Session ids and stream ids
// are random UUIDs (36 characters) and an event id is `${streamId}_${ms}_${random}`
// (its InMemoryEventStore): a real export's keys are five to twenty times the
// generator's `sess-12` / `g1` / `7`, and every index, sort and comparison over
// them pays for the length. Stateless: an id is a hash of what it replaces, so
// a Last-Event-ID still names the event it named.
import { createHash } from 'node:crypto';

const EPOCH_MS = 1_794_218_400_000;
const CACHED = 100_000;

/** A rewriter of one log's records (spec field names, before a dialect renders them). */
export function sdkIds() {
  const cache = new Map();
  const hex = (s) => {
    let h = cache.get(s);
    if (h === undefined) {
      if (cache.size >= CACHED) cache.clear();
      h = createHash('md5').update(s).digest('hex');
      cache.set(s, h);
    }
    return h;
  };
  const uuid = (s) => {
    const h = hex(s);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  };
  const session = (v) => uuid(`session ${v}`);
  // The stream part is the session's first stream: a resumption names the event, not the stream it was on.
  const eventId = (sess, v) => (v === null || v === undefined ? v : `${uuid(`stream ${sess} g1`)}_${EPOCH_MS + Number(v) * 7}_${hex(`event ${sess} ${v}`).slice(0, 8)}`);
  const headers = (h, sess) => {
    if (h === undefined) return h;
    const out = { ...h };
    if (out['mcp-session-id'] !== undefined) out['mcp-session-id'] = session(out['mcp-session-id']);
    if (out['last-event-id'] !== undefined) out['last-event-id'] = eventId(sess ?? h['mcp-session-id'], out['last-event-id']);
    return out;
  };
  return (rec) => {
    const out = { ...rec };
    const sess = rec.session ?? rec.req_headers?.['mcp-session-id'] ?? rec.resp_headers?.['mcp-session-id'];
    if (rec.session !== undefined) out.session = session(rec.session);
    for (const f of ['stream', 'new_stream']) if (rec[f] !== undefined) out[f] = uuid(`stream ${sess} ${rec[f]}`);
    for (const f of ['event_id', 'last_event_id', 'first_replayed', 'oldest_retained']) if (rec[f] !== undefined) out[f] = eventId(sess, rec[f]);
    if (rec.sse_event_ids !== undefined) out.sse_event_ids = rec.sse_event_ids.map((v) => eventId(sess, v));
    if (rec.req_headers !== undefined) out.req_headers = headers(rec.req_headers, sess);
    if (rec.resp_headers !== undefined) out.resp_headers = headers(rec.resp_headers, sess);
    return out;
  };
}
