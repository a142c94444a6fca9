// Deterministic (seeded) resumption logs of N lines in the shapes production
// exports have: interleaved sessions, several nodes in several dialects,
// proxy lines, 404 storms, retried calls, shared principals, faulty reconnects.
// Sessions are scripted one at a time and merged by time through a heap, so
// memory stays bounded by the sessions live at once, not by N.
import { createWriteStream } from 'node:fs';
import { fuzzer } from './fuzz.js';
import { sdkIds } from './sdk-ids.js';

export const SHAPES = {
  uniform: 'sessions one after another, one node, clean (the original bench shape)',
  interleaved: 'thousands of sessions live at once, clean',
  multinode: 'four nodes in four dialects (spec with seq, pino, ECS, OTel attributes), clean',
  proxy: 'proxy http lines paired with server records by req, and proxy-only clients',
  storms: '404 storms, retried tool calls, one principal across many sessions',
  faults: 'about 2% faulty reconnects, one fault of each rule family in turn',
  'bad-server': 'every reconnect faulty: tens of thousands of findings',
  production: 'the mix: interleaved, multi-node dialects, proxies, storms, 2% faults, app log lines',
  'long-sessions': 'about a hundred sessions live at once, each hundreds of reconnects long; 2% faulty rounds; a quarter restart event ids on each stream',
  soak: "a soak test's log: a few clients, each one session thousands of reconnects long, on one node, clean",
  'soak-attach': 'the soak, its clients reattaching without Last-Event-ID (session resumption every time), clean',
  'soak-one': 'a soak test of one client: one session the whole log long (up to 40,000 rounds, about 520k lines, then the next), resumed every round and reattached every tenth, clean',
  polling: "a 2025-11-25 soak: a few clients, each one session thousands of rounds long, every tool call's response stored for replay behind a priming event and a poll close, then fetched by a resumption (half the servers log it as an event.replayed line); 2% never fetched",
  rotated:
    "soak-one's log rotated: it begins after the session was created, so the engine cannot replay what the server knew and, at every " +
    'reconnect, asks whether any history gives the same answer',
  unclosed:
    "soak-one on a server that logs no stream.closed: every stream stays a live writer, so each resumption meets all the earlier streams " +
    "of its lineage (a dual-writer finding each) and its decision fences them all; each round's tool call is answered on a POST stream left open too",
  'id-pool': 'the production mix with session ids drawn from a pool of 20, as a fuzzer might: each id thousands of sessions long',
  'one-id': 'the production mix on a server that hands every client the same session id: one id, created again for every session, its incarnations thousands',
  folder: 'one principal running the same tools (same arguments) in every session: one file of the --folder bench',
  lifecycle:
    "soak-one's one long session on a server that logs what no other shape does, every round: a bounded buffer's trim (the session's and the stream's in turn), " +
    'sampling requests answered, cancelled, timed out or reissued (and the reissue answered) in turn, the old stream fenced instead of closed every fifth round, a tools change every tenth; clean',
  'sdk-ids': 'the production mix with ids as the TypeScript SDK mints them: UUID sessions and streams, event ids `${streamId}_${ms}_${random}`',
  fuzz: 'the production mix with 5% of its records mutated as a fuzzer would: ids from other sessions, streams and requests, fields dropped or of the wrong type, kinds swapped, times out of order, lines duplicated, cut short or junk',
  stateless:
    "2026-07-28 clients, no session: thousands of requests live at once on three nodes, each a tools/call whose response stream's " +
    'events and close carry no version (the server writes it only where the request begins), clean',
  hostile:
    'a few clients, each one session thousands of rounds long that repeats what other shapes do once: seen only by the proxy (every other one from before its initialize), ' +
    'one JSON-RPC id reused for every call, no principal logged at all, two nodes sharing the event store, a storm of rejected reconnects while sampling requests wait, ' +
    'a cursor that never moves (every resumption from the first event, replaying the lane so far)',
};

/** Which shapes must come out of analyze with no finding at all. */
export const CLEAN_SHAPES = ['uniform', 'interleaved', 'multinode', 'soak', 'soak-attach', 'soak-one', 'lifecycle', 'rotated', 'stateless'];

const BASE = Date.parse('2026-11-09T10:00:00.000Z');
const NODES = ['node-a', 'node-b', 'node-c', 'node-d'];
const DIALECT_OF = { 'node-a': 'spec', 'node-b': 'pino', 'node-c': 'ecs', 'node-d': 'otel' };
const FAULTS = [
  'truncation', 'phantom', 'after-end', 'replay-on-attach', 'pending-not-reemitted', 'dual-writer', 'cross-principal', 'storm', 'dup-call', 'stateless-session',
];

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Shape parameters: how sessions arrive, where they run, what goes wrong. */
function profile(shape, lines) {
  const p = {
    gapMs: 40, stepMs: 1500, nodes: ['node-a'], dialects: false, proxyShare: 0, proxyOnlyShare: 0, stormShare: 0, faultShare: 0, sharedPrincipal: 0, appLines: 0,
    rounds: 4, roundFault: 0, restartIds: 0, attachAlways: false, attachEvery: 0, idPool: 0, polling: false, pollStranded: 0, lifecycle: false,
  };
  switch (shape) {
    case 'uniform': return { ...p, sequential: true };
    case 'interleaved': return { ...p, gapMs: 8 };
    case 'multinode': return { ...p, gapMs: 10, nodes: NODES, dialects: true };
    case 'proxy': return { ...p, gapMs: 10, nodes: NODES.slice(0, 2), proxyShare: 0.5, proxyOnlyShare: 0.25 };
    case 'storms': return { ...p, gapMs: 10, stormShare: 0.2, sharedPrincipal: 0.3 };
    case 'faults': return { ...p, gapMs: 10, nodes: NODES.slice(0, 2), faultShare: 0.02 / 0.5 }; // 4 reconnects a session
    case 'bad-server': return { ...p, gapMs: 10, faultShare: 1 };
    case 'folder': return { ...p, gapMs: 10, sharedPrincipal: 1 };
    case 'production': return { ...p, gapMs: 10, nodes: NODES, dialects: true, proxyShare: 0.3, proxyOnlyShare: 0.1, stormShare: 0.02, faultShare: 0.05, sharedPrincipal: 0.1, appLines: 0.01 };
    // A session's work grows with its length: lanes thousands of events long, a resumption's window, an event id sent on every stream.
    case 'soak': return { ...p, gapMs: 600_000, rounds: 5000 };
    case 'polling': return { ...p, gapMs: 600_000, rounds: 5000, polling: true, pollStranded: 0.02 };
    case 'soak-attach': return { ...p, gapMs: 600_000, rounds: 5000, attachAlways: true };
    // Each kind once a round: a lookup that walks every trim, change or request of the session shows as its length squared.
    case 'lifecycle': return { ...profile('soak-one', lines), rounds: Math.min(Math.ceil(lines / 14) + 1, 40_000), lifecycle: true };
    // About 13 lines a round; a session is scripted whole before it is written, hence the cap.
    case 'soak-one': return { ...p, sequential: true, rounds: Math.min(Math.ceil(lines / 12) + 1, 40_000), attachEvery: 10 };
    case 'rotated': return { ...profile('soak-one', lines), rotated: true };
    case 'unclosed': return { ...profile('soak-one', lines), unclosed: true };
    case 'id-pool': return { ...profile('production'), idPool: 20 };
    case 'one-id': return { ...profile('production'), idPool: 1 };
    case 'fuzz': return { ...profile('production'), fuzz: 0.05 };
    case 'sdk-ids': return { ...profile('production'), sdkIds: true };
    case 'hostile': return { ...p, gapMs: 600_000, rounds: 5000, hostile: true };
    case 'stateless': return { ...p, gapMs: 2, nodes: NODES.slice(0, 3), statelessRequests: true };
    case 'long-sessions': return { ...p, gapMs: 20_000, nodes: NODES, dialects: true, proxyShare: 0.3, rounds: 300, roundFault: 0.02, restartIds: 0.25 };
    default: throw new Error(`unknown shape "${shape}" (known: ${Object.keys(SHAPES).join(', ')})`);
  }
}

/**
 * The records of one session, in its own order, with absolute times. A session
 * is a creation, a GET stream, four rounds of events + a server request + a
 * tool call + a dropped connection and its resumption, and an end.
 */
function scriptSession(s, p, rnd, start) {
  const recs = [];
  let t = start;
  const session = `sess-${p.idPool > 0 ? s % p.idPool : s}`;
  const node = p.nodes[s % p.nodes.length];
  const principal = p.sharedPrincipal > 0 && rnd() < p.sharedPrincipal ? 'tok:shared' : `tok:${s % 997}`;
  const proxyOnly = rnd() < p.proxyOnlyShare;
  const proxied = !proxyOnly && rnd() < p.proxyShare;
  const storm = rnd() < p.stormShare;
  const faultAt = p.faultShare > 0 && rnd() < p.faultShare * 4 ? Math.floor(rnd() * 4) : -1;
  const everyRound = p.faultShare >= 1;
  const faultOf = (k) => FAULTS[(s + (everyRound ? k : 0)) % FAULTS.length];
  const fault = faultOf(0);
  const step = () => (t += 1 + Math.floor(rnd() * p.stepMs));
  // unclosed: a server that never logs a stream's end.
  const add = (rec) => (p.unclosed && rec.kind === 'stream.closed' ? 0 : recs.push({ t, rec: { node, ...rec } }));
  if (p.statelessRequests) return scriptStatelessRequest(s, p, rnd, start, node);
  if (proxyOnly) return scriptProxyOnly(s, p, rnd, start, session, principal);
  if (p.hostile) return scriptHostile(s, p, rnd, start, session);
  let req = 0;
  const http = (method, status, reqHeaders, extra = {}) => {
    const id = `sess-${s}-q${req++}`; // one request, one id, whatever the session id
    recs.push({ t, rec: { kind: 'http', node: 'proxy-1', method, path: '/mcp', status, req_headers: { accept: 'application/json, text/event-stream', ...reqHeaders }, principal, req: id, duration_ms: 5, ...extra } });
    return { req: id };
  };
  const stateless = faultAt >= 0 && !everyRound && fault === 'stateless-session';
  // A server bug of long sessions: event ids counted per stream, so each id is sent again on every stream.
  const restartIds = p.restartIds > 0 && rnd() < p.restartIds;
  const version = stateless ? '2026-07-28' : p.polling ? '2025-11-25' : undefined;
  if (!p.rotated) add({ kind: 'session.created', session, incarnation: `i-${s}`, principal, ...(version && { protocol_version: version }) });
  step();
  add({ kind: 'stream.opened', session, stream: 'g1', via: 'get', conn: `c${s}`, principal });
  let eid = 0;
  let stream = 'g1';
  for (let k = 0; k < p.rounds; k++) {
    const faulty = (everyRound || faultAt === k || (p.roundFault > 0 && rnd() < p.roundFault)) && !stateless;
    const fault = p.roundFault > 0 ? FAULTS[Math.floor(rnd() * (FAULTS.length - 1))] : faultOf(k); // stateless-session (last) is a session's, not a round's
    const pending = faulty && fault === 'pending-not-reemitted';
    for (let e = 0; e < 6; e++) {
      step();
      eid++;
      add({ kind: 'event.sent', session, stream, event_id: eid, rpc_kind: 'notification', method: 'notifications/progress' });
    }
    step();
    eid++;
    const rid = `r-${s}-${k}`;
    add({ kind: 'event.sent', session, stream, event_id: eid, rpc_kind: 'request', rpc_id: rid, method: 'sampling/createMessage' });
    add({ kind: 'request.sent', session, stream, request_id: rid, method: 'sampling/createMessage', event_id: eid });
    // A buffer of the last few events: the trim keeps the round's last five, which the resumption below asks after.
    if (p.lifecycle) add({ kind: 'buffer.trimmed', session, ...(k % 2 === 1 && { stream }), oldest_retained: eid - 4 });
    if (p.lifecycle && !pending && k % 4 > 0) {
      step();
      if (k % 4 === 1) add({ kind: 'request.cancelled', session, request_id: rid });
      else if (k % 4 === 2) add({ kind: 'request.timed_out', session, request_id: rid });
      else {
        add({ kind: 'request.reissued', session, stream, request_id: rid, new_request_id: `${rid}b` });
        step();
        add({ kind: 'request.answered', session, request_id: `${rid}b`, status: 202 });
      }
    } else if (!pending) {
      step();
      const q = proxied ? http('POST', 202, { 'mcp-session-id': session }, { rpc_kind: 'response', rpc_id: rid }) : {};
      add({ kind: 'request.answered', session, request_id: rid, status: 202, ...q });
    }
    step();
    const args = principal === 'tok:shared' ? 'h-shared' : `h${s}-${k}`;
    const q = proxied ? http('POST', 200, { 'mcp-session-id': session }, { rpc_kind: 'request', rpc_method: 'tools/call', rpc_id: k }) : {};
    // unclosed: the tool call answered on a POST response stream of its own, which the server never logs ending either
    if (p.unclosed) add({ kind: 'stream.opened', session, stream: `p${k}`, via: 'post' });
    add({ kind: 'call', session, rpc_id: k, method: 'tools/call', tool: 'lookup', args_hash: args, status: 200, ...q, ...(p.unclosed && { stream: `p${k}` }) });
    // executed again a moment later (the same line at the same instant would be one line a shipper delivered twice)
    if (faulty && fault === 'dup-call') {
      step();
      add({ kind: 'call', session, rpc_id: k, method: 'tools/call', tool: 'lookup', args_hash: args, status: 200 });
    }
    if (storm && k === 1) {
      for (let i = 0; i < 6; i++) {
        t += 300;
        add({ kind: 'request.answered', session, request_id: `gone-${s}-${i}`, status: 404 });
      }
      t += 200;
      add({ kind: 'call', session, rpc_id: `retry-${k}`, method: 'tools/call', tool: 'lookup', args_hash: args, status: 200 });
    }
    if (faulty && fault === 'storm') {
      for (let i = 0; i < 6; i++) {
        t += 200;
        add({ kind: 'call', session, rpc_id: `s-${k}-${i}`, method: 'tools/call', tool: 'lookup', args_hash: `x${i}`, status: 404 });
      }
    }
    if (p.lifecycle && k % 5 === 4) add({ kind: 'stream.fenced', session, stream });
    else if (!(faulty && fault === 'dual-writer')) add({ kind: 'stream.closed', session, stream, reason: 'error' });
    const next = `g${k + 2}`;
    step();
    if (faulty && fault === 'after-end') {
      add({ kind: 'session.terminated', session, reason: 'client_delete' });
      step();
      add({ kind: 'upgrade', session, last_event_id: eid, stream, new_stream: next, decision: 'resume', status: 200, replayed: 0, reemitted: 0, principal });
      return recs; // nothing follows an end
    }
    const attach = p.attachAlways || (p.attachEvery > 0 && k % p.attachEvery === p.attachEvery - 1);
    if (pending || (faulty && fault === 'replay-on-attach') || attach) {
      add({ kind: 'upgrade', session, last_event_id: null, new_stream: next, decision: 'attach', status: 200, replayed: faulty && fault === 'replay-on-attach' && !pending ? 3 : 0, reemitted: 0, cancelled: 0, principal });
    } else {
      const truncated = faulty && fault === 'truncation';
      const phantom = faulty && fault === 'phantom';
      const cross = faulty && fault === 'cross-principal';
      const last = truncated || cross ? eid - 3 : phantom ? eid + 1000 : eid;
      const replayed = cross ? 3 : 0;
      const q = proxied ? http('GET', 200, { 'mcp-session-id': session, 'last-event-id': String(last) }, { resp_headers: { 'content-type': 'text/event-stream' } }) : {};
      add({
        kind: 'upgrade', session, last_event_id: last, stream, new_stream: next, decision: 'resume', status: 200, replayed, reemitted: 0,
        ...(cross && { first_replayed: eid - 2 }), principal: cross ? 'tok:intruder' : principal, ...q,
      });
    }
    add({ kind: 'stream.opened', session, stream: next, via: 'get', conn: `c${s}-${k}` });
    if (p.lifecycle && k % 10 === 9) add({ kind: 'session.state_changed', session, aspect: 'tools' });
    stream = next;
    if (restartIds) eid = 0;
    if (p.polling) eid = pollCall(k, eid);
  }
  step();
  add({ kind: 'session.terminated', session, reason: 'client_delete' });
  return recs;

  /** A tool call polled as 2025-11-25 allows: its response stored for replay, fetched by resuming from the priming event. */
  function pollCall(k, eid) {
    const post = `p${k + 1}`;
    step();
    add({ kind: 'call', session, rpc_id: `poll-${k}`, method: 'tools/call', tool: 'report', args_hash: `hp${s}-${k}`, status: 200 });
    add({ kind: 'stream.opened', session, stream: post, via: 'post', conn: `c${s}-p${k}` });
    const primed = ++eid;
    add({ kind: 'event.sent', session, stream: post, event_id: primed, priming: true });
    add({ kind: 'stream.closed', session, stream: post, reason: 'poll', retry_ms: 1000 });
    step();
    add({ kind: 'event.sent', session, stream: post, event_id: ++eid, rpc_kind: 'response', rpc_id: `poll-${k}`, attached: false });
    if (rnd() >= p.pollStranded) {
      step();
      // Half the clients' server logs the replayed response as its own event.replayed line, not as first_replayed.
      const lines = s % 2 === 1;
      add({ kind: 'upgrade', session, last_event_id: primed, stream: post, new_stream: `${post}r`, decision: 'resume', status: 200, replayed: 1, reemitted: 0, ...(!lines && { first_replayed: eid }), principal });
      if (lines) add({ kind: 'event.replayed', session, stream: `${post}r`, event_id: eid });
      add({ kind: 'stream.closed', session, stream: `${post}r`, reason: 'client' });
    }
    return eid;
  }
}

/** A client seen only by the proxy: initialize, the GET stream, calls, one resumption, DELETE. */
function scriptProxyOnly(s, p, rnd, start, session, principal) {
  const recs = [];
  let t = start;
  let n = 0;
  const step = () => (t += 1 + Math.floor(rnd() * p.stepMs));
  const http = (method, status, reqHeaders, extra = {}) =>
    recs.push({ t, rec: { kind: 'http', node: 'proxy-1', method, path: '/mcp', status, req_headers: { accept: 'application/json, text/event-stream', ...reqHeaders }, principal, req: `px-${s}-${n++}`, duration_ms: 4, ...extra } });
  http('POST', 200, {}, { resp_headers: { 'mcp-session-id': session, 'content-type': 'application/json' }, rpc_kind: 'request', rpc_method: 'initialize', rpc_id: 0 });
  step();
  http('GET', 200, { 'mcp-session-id': session }, { resp_headers: { 'content-type': 'text/event-stream' }, sse_event_ids: ['1', '2', '3'] });
  for (let k = 1; k <= 6; k++) {
    step();
    http('POST', 200, { 'mcp-session-id': session }, { resp_headers: { 'content-type': 'application/json' }, rpc_kind: 'request', rpc_method: 'tools/call', rpc_id: k });
  }
  step();
  http('GET', 200, { 'mcp-session-id': session, 'last-event-id': '3' }, { resp_headers: { 'content-type': 'text/event-stream' }, sse_event_ids: ['4', '5'] });
  step();
  http('DELETE', 200, { 'mcp-session-id': session });
  return recs;
}

/**
 * A 2026-07-28 request (no session): its call and its response stream's opening carry the version; the
 * stream's progress events, its response and its close do not, and inherit it from the stream.
 */
function scriptStatelessRequest(s, p, rnd, start, node) {
  const recs = [];
  let t = start;
  const step = () => (t += 1 + Math.floor(rnd() * p.stepMs));
  const stream = `sl-${s}`;
  const add = (rec) => recs.push({ t, rec: { node, ...rec } });
  add({ kind: 'call', rpc_id: s, method: 'tools/call', tool: 'lookup', args_hash: `h${s}`, status: 200, protocol_version: '2026-07-28' });
  add({ kind: 'stream.opened', stream, via: 'post', protocol_version: '2026-07-28' });
  for (let e = 1; e <= 4; e++) {
    step();
    add({ kind: 'event.sent', stream, event_id: `${stream}-${e}`, rpc_kind: 'notification', method: 'notifications/progress' });
  }
  step();
  add({ kind: 'event.sent', stream, event_id: `${stream}-5`, rpc_kind: 'response', rpc_id: s });
  add({ kind: 'stream.closed', stream, reason: 'server' });
  return recs;
}

/**
 * One long session that repeats, round after round, a thing other shapes do
 * once per session; each is where a per-round lookup would walk the session.
 */
function scriptHostile(s, p, rnd, start, session) {
  const recs = [];
  let t = start;
  let node = 'node-a';
  const step = () => (t += 1 + Math.floor(rnd() * p.stepMs));
  const add = (rec) => recs.push({ t, rec: { node, ...rec } });
  const http = (method, status, reqHeaders, extra = {}) =>
    recs.push({ t, rec: { kind: 'http', node: 'proxy-1', method, path: '/mcp', status, req_headers: { accept: 'application/json, text/event-stream', ...reqHeaders }, ...extra } });
  let eid = 0;
  const progress = (stream) => add({ kind: 'event.sent', session, stream, event_id: ++eid, rpc_kind: 'notification', method: 'notifications/progress' });
  /** Created, its GET stream g0 sending two events, then closed. */
  const createdWithTwoEvents = (reason) => {
    add({ kind: 'session.created', session, incarnation: `i-${s}`, principal: `tok:${s}` });
    add({ kind: 'stream.opened', session, stream: 'g0', via: 'get', principal: `tok:${s}` });
    progress('g0');
    progress('g0');
    add({ kind: 'stream.closed', session, stream: 'g0', reason });
  };
  switch (s % 6) {
    case 0: {
      // Only the proxy logged it, without req ids: every GET a resumption whose SSE ids it saw, lasting the stream's life.
      if (s % 2 === 0) http('POST', 200, {}, { resp_headers: { 'mcp-session-id': session, 'content-type': 'application/json' }, rpc_kind: 'request', rpc_method: 'initialize', rpc_id: 0, principal: `tok:${s}` });
      for (let k = 1; k <= p.rounds; k++) {
        step();
        http('GET', 200, { 'mcp-session-id': session, ...(eid > 0 && { 'last-event-id': String(eid) }) }, { resp_headers: { 'content-type': 'text/event-stream' }, sse_event_ids: [String(++eid), String(++eid)], principal: `tok:${s}`, duration_ms: 30_000 });
        step();
        http('POST', 200, { 'mcp-session-id': session }, { resp_headers: { 'content-type': 'application/json' }, rpc_kind: 'request', rpc_method: 'tools/call', rpc_id: k, principal: `tok:${s}` });
      }
      return recs;
    }
    case 1:
      // A client that sends every call as JSON-RPC id 1 (other arguments each time: other calls, no finding).
      add({ kind: 'session.created', session, incarnation: `i-${s}`, principal: `tok:${s}` });
      for (let k = 1; k <= p.rounds; k++) {
        step();
        add({ kind: 'call', session, rpc_id: 1, method: 'tools/call', tool: 'lookup', args_hash: `h${s}-${k}`, status: 200 });
      }
      return recs;
    case 2: {
      // No principal anywhere, a health check called alike every round, and a 404 the proxy saw.
      add({ kind: 'session.created', session, incarnation: `i-${s}` });
      add({ kind: 'stream.opened', session, stream: 'g0', via: 'get' });
      for (let k = 1; k <= p.rounds; k++) {
        step();
        progress(`g${k - 1}`);
        add({ kind: 'stream.closed', session, stream: `g${k - 1}`, reason: 'error' });
        step();
        add({ kind: 'upgrade', session, last_event_id: eid, stream: `g${k - 1}`, new_stream: `g${k}`, decision: 'resume', status: 200, replayed: 0, reemitted: 0 });
        add({ kind: 'stream.opened', session, stream: `g${k}`, via: 'get' });
        step();
        add({ kind: 'call', session, rpc_id: k, method: 'tools/call', tool: 'health', args_hash: 'h-empty', status: 200 });
      }
      return recs;
    }
    case 3: {
      // Two nodes behind a shared event store: each resumption lands on the other node and continues its events.
      createdWithTwoEvents('client');
      for (let k = 1; k <= p.rounds; k++) {
        step();
        node = k % 2 ? 'node-b' : 'node-a';
        add({ kind: 'upgrade', session, last_event_id: eid - 1, stream: `g${k - 1}`, new_stream: `g${k}`, decision: 'resume', status: 200, replayed: 1, reemitted: 0, first_replayed: eid, principal: `tok:${s}` });
        add({ kind: 'stream.opened', session, stream: `g${k}`, via: 'get', principal: `tok:${s}` });
        progress(`g${k}`);
        progress(`g${k}`);
        step();
        add({ kind: 'stream.closed', session, stream: `g${k}`, reason: 'client' });
      }
      return recs;
    }
    case 5: {
      // A client whose cursor never moves: every resumption from the first event, the whole lane replayed.
      createdWithTwoEvents('error');
      for (let k = 1; k <= p.rounds; k++) {
        step();
        add({ kind: 'upgrade', session, last_event_id: 1, stream: `g${k - 1}`, new_stream: `g${k}`, decision: 'resume', status: 200, replayed: eid - 1, reemitted: 0, first_replayed: 2, principal: `tok:${s}` });
        add({ kind: 'stream.opened', session, stream: `g${k}`, via: 'get', principal: `tok:${s}` });
        progress(`g${k}`);
        step();
        add({ kind: 'stream.closed', session, stream: `g${k}`, reason: 'error' });
      }
      return recs;
    }
    default: {
      // Evicted with sampling requests waiting; the client keeps reconnecting and is refused every time.
      add({ kind: 'session.created', session, incarnation: `i-${s}`, principal: `tok:${s}` });
      add({ kind: 'stream.opened', session, stream: 'g0', via: 'get', principal: `tok:${s}` });
      for (let i = 0; i < 50; i++) {
        step();
        add({ kind: 'event.sent', session, stream: 'g0', event_id: ++eid, rpc_kind: 'request', rpc_id: `q${i}`, method: 'sampling/createMessage' });
        add({ kind: 'request.sent', session, stream: 'g0', request_id: `q${i}`, method: 'sampling/createMessage', event_id: eid });
      }
      step();
      add({ kind: 'session.evicted', session, reason: 'idle_timeout' });
      for (let k = 1; k <= p.rounds; k++) {
        step();
        add({ kind: 'upgrade', session, last_event_id: eid, stream: 'g0', decision: 'reject', status: 404, reason: 'session_not_found', replayed: 0, reemitted: 0, principal: `tok:${s}` });
      }
      return recs;
    }
  }
}

/** One record as the dialect of its node writes it. */
function render(rec, t, dialect, seq) {
  const { kind, node, ...f } = rec;
  switch (dialect) {
    case 'pino':
      return { level: 30, time: t, pid: 4242, hostname: node, msg: kind, mcp: f };
    case 'ecs': {
      const { session, stream, ...rest } = f;
      return {
        '@timestamp': new Date(t).toISOString(), 'log.level': 'info', event: { dataset: 'mcp.server', kind: 'event' }, host: { name: node },
        type: kind, hostname: node, ...(session !== undefined && { session_id: session }), ...(stream !== undefined && { stream_id: stream }), ...rest,
      };
    }
    case 'otel': {
      const { session, ...rest } = f;
      return { timestamp: new Date(t).toISOString(), severity_text: 'INFO', resource: { 'service.name': 'mcp' }, attributes: { event: kind, instance: node, ...(session !== undefined && { 'mcp.session.id': session }), ...rest } };
    }
    default:
      return { ts: new Date(t).toISOString(), kind, node, ...(seq !== undefined && { seq }), ...f };
  }
}

class Heap {
  items = [];
  push(x) {
    const a = this.items;
    a.push(x);
    for (let i = a.length - 1; i > 0; ) {
      const up = (i - 1) >> 1;
      if (!before(a[i], a[up])) break;
      [a[i], a[up]] = [a[up], a[i]];
      i = up;
    }
  }
  pop() {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < a.length && before(a[l], a[m])) m = l;
        if (r < a.length && before(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
  get size() {
    return this.items.length;
  }
}
const before = (a, b) => a.recs[a.i].t < b.recs[b.i].t || (a.recs[a.i].t === b.recs[b.i].t && a.s < b.s);

/** Writes `lines` lines of `shape` to `path`; returns the number written. Same seed, same bytes. */
/** `firstSession` and `startMs` let the files of one folder hold distinct sessions, one after another in time. */
export async function generate(path, lines, { shape = 'uniform', seed = 1, firstSession = 0, startMs = BASE } = {}) {
  const p = profile(shape, lines);
  const rnd = mulberry32(seed);
  const out = createWriteStream(path);
  const seqByNode = new Map();
  let n = 0;
  let buf = '';
  const fuzz = p.fuzz ? fuzzer(rnd, p.fuzz) : undefined;
  const ids = p.sdkIds ? sdkIds() : (rec) => rec;
  const emit = async (obj) => {
    const line = JSON.stringify(obj);
    const junk = fuzz?.junk(line);
    if (junk !== undefined) await emitText(junk);
    await emitText(line);
  };
  const emitText = async (line) => {
    n++;
    buf += line + '\n';
    if (buf.length > 1 << 16) {
      const ok = out.write(buf);
      buf = '';
      if (!ok) await new Promise((r) => out.once('drain', r));
    }
  };
  const heap = new Heap();
  let s = firstSession;
  let nextStart = startMs;
  let lastEnd = startMs;
  while (n < lines) {
    // Start every session due before the earliest pending record, so times only grow.
    while (heap.size === 0 || nextStart <= heap.items[0].recs[heap.items[0].i].t) {
      const start = p.sequential ? lastEnd + 3 : nextStart;
      const recs = scriptSession(s, p, rnd, start);
      lastEnd = recs[recs.length - 1].t;
      heap.push({ s: s++, i: 0, recs });
      nextStart = p.sequential ? Infinity : nextStart + 1 + Math.floor(rnd() * 2 * p.gapMs);
      if (p.sequential) break;
    }
    const cur = heap.pop();
    const { t, rec: scripted } = cur.recs[cur.i++];
    const rec = ids(scripted);
    if (cur.i < cur.recs.length) heap.push(cur);
    const dialect = p.dialects ? (DIALECT_OF[rec.node] ?? 'spec') : 'spec';
    let seq;
    if (rec.node === 'node-a' && p.nodes.length > 1) {
      seq = (seqByNode.get(rec.node) ?? 0) + 1;
      seqByNode.set(rec.node, seq);
    }
    if (fuzz === undefined) await emit(render(rec, t, dialect, seq));
    else for (const m of fuzz.mutate(rec, t)) await emit(render(m.rec, m.t, dialect, seq));
    if (p.appLines > 0 && n < lines && rnd() < p.appLines) await emit({ ts: new Date(t).toISOString(), level: 'info', message: 'GET /healthz 200', node: rec.node });
  }
  out.write(buf);
  await new Promise((r) => out.end(r));
  return n;
}
