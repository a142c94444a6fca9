#!/usr/bin/env node
// Independent generator of MCP resumption logs (log-format.md v2 / rules.md v2).
// Written from log-format.md, rules.md and the seeds alone, by helpers who did not read the analyzer
// (issue 10, 27th session): it shares none of bench/generate.js's assumptions. Kept as written, so that
// the measurements in docs/performance.md can be made again:  npm run bench -- --files a.ndjson,b.ndjson
// node gen.mjs --shape prod|soak|chaos --lines N --seed S [--off f1,f2] [--only f1,f2]
//               [--fault-rate 0.03] [--faults a,b] [--dialects canon,pino,...] [--stats] [--fault-log FILE]
// Writes NDJSON to stdout. Seeded PRNG (sfc32), reproducible.
// --fault-log FILE: one JSON line per injected fault ({fault, session, t_ms}: the session it was injected
// into and the generator's clock when it was done), the answer key for a recall check; stdout is unchanged.

import { writeFileSync } from 'node:fs';

// ---------------------------------------------------------------- args
const argv = process.argv.slice(2);
const A = {};
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a.startsWith('--')) {
    const k = a.slice(2);
    const v = argv[i + 1] && !argv[i + 1].startsWith('--') ? argv[++i] : 'true';
    A[k] = v;
  }
}
const SHAPE = A.shape || 'prod';
const N = parseInt(A.lines || '10000', 10);
const SEED = A.seed || '1';
const STATS = A.stats === 'true';
const FAULT_LOG = A['fault-log'] && A['fault-log'] !== 'true' ? A['fault-log'] : null;
const faultLog = [];
const noteFault = (name, session, tMs) => { if (FAULT_LOG) faultLog.push(JSON.stringify({ fault: name, session, t_ms: Math.round(tMs) }) + '\n'); };

// Features (each can be turned off with --off, or restricted with --only)
const ALL_FEATURES = [
  'dialects',      // non-canonical node dialects (pino, ecs, otel, camel, snake, epoch ts, tz offsets)
  'seq',           // seq counter on one node
  'proxy',         // http records paired (req) with server records
  'proxyonly',     // proxy-only clients (backend that does not log)
  'resume',        // disconnects + Last-Event-ID resumption
  'attach',        // attach without Last-Event-ID (client restarts), re-emit of pending
  'calls',         // tools/call with POST response streams
  's2c',           // server-to-client requests (sampling/elicitation/roots)
  'trims',         // buffer.trimmed
  'ends',          // session.terminated / session.evicted
  'restarts',      // node restarts -> 404 storms, re-initialize
  'retries',       // retried tool calls (after 404, after broken stream)
  'bigprincipal',  // one principal across many sessions
  'statechange',   // session.state_changed
  'crossnode',     // resume/attach answered by another node (shared store)
  'replaydetail',  // event.replayed records and replayed_ids
  'applogs',       // ordinary application lines (ignored lines)
  'faults',        // faulty server behaviour from every rule family
  'revisions',     // protocol revision mix (2025-03-26, 06-18, 11-25 priming/poll, 2026-07-28 stateless)
  'sequence',      // `sequence` lineage field on some sessions
  // chaos-only features
  'skew',          // per-node clock skew
  'jitter',        // file order differs from ts order by a few ms; proxy lines written at completion
  'longids',       // uuids, 60+ char event ids, non-numeric event ids, long session ids
  'manystreams',   // sessions with hundreds of streams
  'manypending',   // sessions with many pending server requests
  'longsession',   // one session spanning the whole log
  'midstart',      // log begins mid-session
  'unclosed',      // streams never closed (clients vanish)
  'dups',          // duplicate lines
  'invalid',       // deliberately invalid lines (< 0.1%)
];
const SHAPE_DEFAULT_OFF = {
  prod: ['skew', 'jitter', 'longids', 'manystreams', 'manypending', 'longsession', 'midstart', 'unclosed', 'dups', 'invalid'],
  soak: ['proxyonly', 'skew', 'jitter', 'longids', 'manystreams', 'manypending', 'longsession', 'midstart', 'unclosed', 'dups', 'invalid', 'restarts', 'bigprincipal', 'crossnode'],
  chaos: [],
  hammer: ['dups', 'invalid'], dupcalls: ['dups', 'invalid'], reuse: ['dups', 'invalid'],
};
const F = {};
for (const f of ALL_FEATURES) F[f] = !(SHAPE_DEFAULT_OFF[SHAPE] || []).includes(f);
if (A.only) { for (const f of ALL_FEATURES) F[f] = false; for (const f of A.only.split(',')) if (f) F[f] = true; }
if (A.off) for (const f of A.off.split(',')) { if (!(f in F) && f) { console.error('unknown feature ' + f); process.exit(2); } F[f] = false; }
if (A.on) for (const f of A.on.split(',')) if (f) F[f] = true;
const FAULT_RATE = A['fault-rate'] != null ? parseFloat(A['fault-rate']) : (SHAPE === 'soak' ? 0.0 : 0.04);
const ALL_FAULTS = ['truncation', 'trimmed-resume', 'phantom', 'foreign', 'lei-nosession', 'regression', 'after-end',
  'state-change', 'fork', 'reset', 'replay-attach', 'pending-not-reemitted', 'dup-reemit', 'dual-writer',
  'write-superseded', 'answered-replayed', 'stranded', 'orphan', 'stale-writer', 'cross-principal', 'dup-call',
  'dup-call-args', 'stateless-session', 'stateless-replay', 'reuse'];
const FAULTS = A.faults ? A.faults.split(',') : ALL_FAULTS;

// ---------------------------------------------------------------- PRNG
function xmur3(str) { let h = 1779033703 ^ str.length; for (let i = 0; i < str.length; i++) { h = Math.imul(h ^ str.charCodeAt(i), 3432918353); h = (h << 13) | (h >>> 19); } return () => { h = Math.imul(h ^ (h >>> 16), 2246822507); h = Math.imul(h ^ (h >>> 13), 3266489909); return (h ^= h >>> 16) >>> 0; }; }
function sfc32(a, b, c, d) { return () => { a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0; let t = (a + b) | 0; a = b ^ (b >>> 9); b = (c + (c << 3)) | 0; c = (c << 21) | (c >>> 11); d = (d + 1) | 0; t = (t + d) | 0; c = (c + t) | 0; return (t >>> 0) / 4294967296; }; }
const sd = xmur3(SHAPE + ':' + SEED);
const rnd = sfc32(sd(), sd(), sd(), sd());
const R = {
  f: rnd,
  int: (a, b) => a + Math.floor(rnd() * (b - a + 1)),
  p: (x) => rnd() < x,
  pick: (arr) => arr[Math.floor(rnd() * arr.length)],
  wpick: (obj) => { let s = 0; for (const k in obj) s += obj[k]; let r = rnd() * s; for (const k in obj) { r -= obj[k]; if (r <= 0) return k; } return Object.keys(obj)[0]; },
  exp: (mean) => -Math.log(1 - rnd()) * mean,
  hex: (n) => { let s = ''; for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(rnd() * 16)]; return s; },
  b64: (n) => { const al = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'; let s = ''; for (let i = 0; i < n; i++) s += al[Math.floor(rnd() * 64)]; return s; },
};
R.uuid = () => `${R.hex(8)}-${R.hex(4)}-4${R.hex(3)}-${'89ab'[R.int(0, 3)]}${R.hex(3)}-${R.hex(12)}`;

// ---------------------------------------------------------------- heap
class Heap {
  constructor(less) { this.a = []; this.less = less; }
  get size() { return this.a.length; }
  top() { return this.a[0]; }
  push(x) { const a = this.a; a.push(x); let i = a.length - 1; while (i > 0) { const p = (i - 1) >> 1; if (this.less(a[i], a[p])) { [a[i], a[p]] = [a[p], a[i]]; i = p; } else break; } }
  pop() { const a = this.a; const top = a[0]; const last = a.pop(); if (a.length) { a[0] = last; let i = 0; for (;;) { const l = 2 * i + 1, r = l + 1; let m = i; if (l < a.length && this.less(a[l], a[m])) m = l; if (r < a.length && this.less(a[r], a[m])) m = r; if (m === i) break; [a[i], a[m]] = [a[m], a[i]]; i = m; } } return top; }
}

// ---------------------------------------------------------------- global world
const T0 = Date.parse('2026-11-20T08:00:00.000Z');
const G = {
  nodes: {},            // name -> {dialect, seq, skew, epoch (restart counter), up}
  serverNodes: [],
  proxyNode: 'edge-proxy-1',
  liveSessions: [],     // for foreign ids: {sid, ids: [...]} (sampled)
  endedSessions: [],    // sids that ended (for fork/after-end faults)
  principals: [],
  bigPrincipal: 'svc:ci-runner',
  bigArgs: [],
  nextConn: 1, nextReq: 1, nextSess: 1, nextStream: 1,
  stats: { lines: 0, kinds: {}, faults: {}, invalid: 0, ignored: 0, dups: 0, sessions: 0, proxyOnly: 0, stateless: 0 },
  spawning: true,
};
function conn() { return 'c-' + (G.nextConn++).toString(36); }
function reqId() { return 'req-' + (G.nextReq++).toString(36) + R.hex(4); }

// node setup
function setupNodes() {
  const dialects = F.dialects ? ['canon', 'camel', 'pino', 'ecs', 'otel', 'snake-epoch', 'canon-offset'] : ['canon'];
  let restrict = A.dialects ? A.dialects.split(',') : null;
  const names = ['mcp-a', 'mcp-b', 'mcp-c', 'mcp-d', 'mcp-e', 'mcp-f', 'mcp-g'];
  const nn = SHAPE === 'soak' ? 2 : names.length;
  for (let i = 0; i < nn; i++) {
    let d = dialects[i % dialects.length];
    if (restrict) d = restrict[i % restrict.length];
    if (SHAPE === 'chaos' && F.dialects && i === 6 && !restrict) d = 'nested-path';
    G.nodes[names[i]] = { dialect: d, seq: F.seq && i === 0 ? 0 : null, skew: 0, epoch: 0 };
    G.serverNodes.push(names[i]);
  }
  if (F.skew) { for (const n of G.serverNodes) G.nodes[n].skew = R.int(-250, 250); }
  G.nodes[G.proxyNode] = { dialect: 'proxy', seq: null, skew: F.skew ? R.int(-40, 40) : 0, epoch: 0 };
  for (let i = 0; i < 800; i++) G.principals.push('user:' + R.pick(['ana', 'bo', 'cy', 'dee', 'eli', 'fay', 'gus', 'hal', 'ivy', 'jo', 'kai', 'lea']) + '-' + R.hex(5));
  for (let i = 0; i < 6; i++) G.bigArgs.push('sha256:' + R.hex(12));
}

// ---------------------------------------------------------------- formatting
function iso(ms) { return new Date(ms).toISOString(); }
function isoOffset(ms, offMin, extraDigits) {
  const d = new Date(ms + offMin * 60000);
  const p = (n, w = 2) => String(n).padStart(w, '0');
  const sign = offMin >= 0 ? '+' : '-'; const o = Math.abs(offMin);
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}T${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3)}${extraDigits}${sign}${p(Math.floor(o / 60))}:${p(o % 60)}`;
}
const RENAME = {
  camel: { session: 'sessionId', stream: 'streamId', protocol_version: 'protocolVersion', node: 'instance', principal: 'subject', conn: 'connection_id' },
  snake: { session: 'session_id', stream: 'stream_id', protocol_version: 'mcp_protocol_version', node: 'hostname', principal: 'client_id', conn: 'connection_id', incarnation: 'session_incarnation' },
  otel: { session: 'mcp.session.id', stream: 'stream_id', protocol_version: 'mcp.protocol.version', node: 'instance', conn: 'connection_id' },
};
function renamed(rec, map) { const o = {}; for (const k in rec) o[map[k] || k] = rec[k]; return o; }
function format(node, rec, tsMs, frac = 0) {
  const nd = G.nodes[node];
  const d = nd.dialect;
  const r = { ...rec };
  switch (d) {
    case 'proxy': case 'canon': default:
      return JSON.stringify({ ts: iso(tsMs), ...r, node });
    case 'canon-offset': // RFC3339 with +01:00 offset and microseconds
      return JSON.stringify({ ts: isoOffset(tsMs, 60, String(Math.floor(frac * 1000)).padStart(3, '0')), ...r, host: node });
    case 'camel': { const { kind, ...rest } = r; return JSON.stringify({ timestamp: iso(tsMs), type: kind, ...renamed(rest, RENAME.camel), instance: node }); }
    case 'snake-epoch': { const { kind, ...rest } = r; return JSON.stringify({ time: tsMs, event: kind, ...renamed(rest, RENAME.snake), hostname: node }); }
    case 'pino': { const { kind, ...rest } = r; return JSON.stringify({ level: 30, time: tsMs, pid: 4127, hostname: node, msg: kind, mcp: rest }); }
    case 'ecs': { const { kind, ...rest } = r; return JSON.stringify({ '@timestamp': iso(tsMs), 'log.level': 'info', message: 'mcp ' + kind, 'ecs.version': '8.11.0', event: { dataset: 'mcp.resumption', kind: 'event', action: kind }, host: { name: node, hostname: node }, service: { name: 'mcp-server' }, mcp: { kind, ...rest, node } }); }
    case 'otel': { const { kind, ...rest } = r; return JSON.stringify({ timestamp: isoOffset(tsMs, 0, String(Math.floor(frac * 1e6)).padStart(6, '0')).replace('+00:00', 'Z'), severity_text: 'INFO', severity_number: 9, body: 'mcp ' + kind, resource: { 'service.name': 'mcp-server' }, attributes: { event: kind, ...renamed(rest, RENAME.otel), instance: node } }); }
    case 'nested-path': { // dotted names as nested paths: mcp.session.id, mcp.protocol.version
      const { session, protocol_version, ...rest } = r; const mcp = {};
      if (session !== undefined) mcp.session = { id: session };
      if (protocol_version !== undefined) mcp.protocol = { version: protocol_version };
      return JSON.stringify({ ts: tsMs, ...rest, mcp, node });
    }
  }
}
function appLine(node, tsMs) {
  const d = G.nodes[node].dialect;
  if (d === 'pino') return JSON.stringify({ level: 30, time: tsMs, pid: 4127, hostname: node, req: { id: R.int(1, 99999), method: 'POST', url: '/mcp' }, res: { statusCode: 200 }, responseTime: R.int(1, 90), msg: 'request completed' });
  if (d === 'ecs') return JSON.stringify({ '@timestamp': iso(tsMs), 'log.level': 'debug', message: 'GC pause ' + R.int(1, 40) + 'ms', event: { dataset: 'runtime' }, host: { name: node } });
  if (d === 'otel') return JSON.stringify({ timestamp: iso(tsMs), severity_text: 'DEBUG', body: 'cache refreshed', attributes: { 'cache.size': R.int(10, 9999) } });
  return JSON.stringify({ ts: iso(tsMs), level: R.pick(['info', 'debug', 'warn']), msg: R.pick(['tool registry reloaded', 'health check ok', 'db pool stats', 'rate limit bucket refilled']), node });
}

// ---------------------------------------------------------------- output
const out = [];
let outBytes = 0;
const outQ = new Heap((a, b) => a.key < b.key || (a.key === b.key && a.n < b.n));
let outN = 0;
let written = 0;
function flushStdout(force) { if (out.length && (force || outBytes > 1 << 20)) { process.stdout.write(out.join('')); out.length = 0; outBytes = 0; } }
function writeLine(s) { out.push(s + '\n'); outBytes += s.length + 1; written++; flushStdout(false); }
function enqueue(item, key) { item.key = key; item.n = outN++; outQ.push(item); }
function drainOut(upTo) {
  while (outQ.size && outQ.top().key <= upTo && written < N) {
    const it = outQ.pop();
    if (it.t < T0) continue; // before the log starts (midstart)
    let line;
    if (it.app) { line = appLine(it.node, Math.round(it.t)); G.stats.ignored++; }
    else {
      const tsx = it.ts + G.nodes[it.node].skew; const ms = Math.floor(tsx);
      line = format(it.node, it.rec, ms, tsx - ms);
      G.stats.kinds[it.rec.kind] = (G.stats.kinds[it.rec.kind] || 0) + 1;
    }
    if (F.invalid && R.p(0.0004)) { writeLine(line.slice(0, Math.max(5, Math.floor(line.length * R.f())))); G.stats.invalid++; if (written >= N) break; }
    writeLine(line);
    if (F.dups && R.p(0.002) && written < N) { writeLine(line); G.stats.dups++; }
  }
}

// ---------------------------------------------------------------- session actor
const PV_MIX = F.revisions ? { '2025-03-26': 2, '2025-06-18': 3, '2025-11-25': 6, none: 2 } : { none: 1 };
function sessionId(style) {
  switch (style) {
    case 'hex': return R.hex(32);
    case 'uuid': return R.uuid();
    case 'seq': return 'S-' + (G.nextSess++);
    case 'b64': return R.b64(43);
    case 'long': return 'sess_' + R.uuid() + '_' + R.uuid() + '_' + R.b64(40);
  }
}
function streamId(style, via) {
  const n = G.nextStream++;
  if (style === 'long') return `${via}-stream-${R.uuid()}-${R.uuid()}`;
  if (style === 'uuid') return R.uuid();
  return (via === 'get' ? 'g-' : 'p-') + n.toString(36) + R.hex(3);
}

class Sess {
  constructor(o) {
    Object.assign(this, o);
    this.streams = new Map();
    this.idCounter = A['id-start1'] === 'true' ? 1 : (o.idStyle === 'int' || o.idStyle === 'intstr' ? R.int(1, 60000) : 1);
    this.allIds = [];
    this.pending = new Map(); // rid -> {stream, idx, sentAt, delivered}
    this.answered = new Set();
    this.reqN = 1; this.rpcN = R.int(1, 5);
    this.lastStateChange = -Infinity; // index in allIds of emission count at time of state change
    this.ended = false;
    this.get = null; // current standalone stream id
    this.primed = o.pv === '2025-11-25';
    this.eventReq = new Map();
  }
  newId(stream) {
    const n = this.idCounter++;
    switch (this.idStyle) {
      case 'int': return n;
      case 'intstr': return String(n);
      case 'sdk': return `_${stream.via === 'get' ? 'GET' : 'POST'}_stream_${1794744000000 + n * 37}_${R.hex(8)}`;
      case 'long': return `evt:${this.sid.slice(0, 8)}:${stream.id.slice(0, 12)}:${String(n).padStart(8, '0')}:${R.hex(24)}`;
      case 'uuid': return R.uuid();
    }
  }
}

const METHODS_S2C = ['sampling/createMessage', 'elicitation/create', 'roots/list'];
const TOOLS = ['search_docs', 'run_query', 'send_email', 'create_ticket', 'fetch_url', 'run_tests', 'summarize'];

function* sessionActor(o) {
  const q = [];
  let t = o.start;
  const nodeEpoch = () => G.nodes[s.node].epoch;
  const s = new Sess(o);
  G.stats.sessions++;
  const base = () => {
    const b = {};
    if (s.sid !== undefined) b.session = s.sid;
    return b;
  };
  const emit = (kind, fields, opt = {}) => {
    const rec = { kind, ...base(), ...fields };
    if (opt.noSession) delete rec.session;
    q.push({ t, ts: t, node: opt.node || s.node, rec });
  };
  const pvf = () => (s.pv !== 'none' ? { protocol_version: s.pv } : {});
  const proxyLine = (ts, endT, fields) => {
    if (!F.proxy || !s.viaProxy) return;
    const it = { t: endT, ts, node: G.proxyNode, rec: { kind: 'http', ...fields } };
    if (F.jitter) G.deferred.push(it); else q.push({ ...it, t, ts: t });
  };
  const hdrCase = (k) => s.hdrStyle === 'lower' ? k.toLowerCase() : s.hdrStyle === 'upper' ? k.toUpperCase() : k;
  const hdrs = (o2) => { const h = {}; for (const k in o2) if (o2[k] !== undefined) h[hdrCase(k)] = o2[k]; return h; };
  const authHdr = () => (R.p(0.7) ? { Authorization: 'Bearer ' + R.b64(36) } : { Cookie: 'sid=' + R.b64(20) });

  // ---- streams
  const newStream = (via, lineage) => {
    const st = { id: streamId(s.sidStyle === 'long' ? 'long' : s.streamStyle, via), via, open: true, closed: false, fenced: false, ids: [], gidx: [], delivered: -1, lineage: lineage || null, conn: conn(), openedAt: t, superseded: false, primedIdx: -1 };
    st.lineage = lineage || st.id;
    s.streams.set(st.id, st);
    return st;
  };
  const sendEvent = (st, fields = {}) => {
    const id = s.newId(st);
    const attached = st.open;
    st.ids.push(id); st.gidx.push(s.allIds.length); s.allIds.push(id);
    const f = { stream: st.id, event_id: id, ...fields };
    if (s.useSequence) f.sequence = st.lineage;
    if (!attached) f.attached = false;
    emit('event.sent', f);
    if (attached && !st.halfOpen) st.delivered = st.ids.length - 1;
    return id;
  };
  const closeStream = (st, reason, extra = {}) => {
    if (st.closed) return;
    st.open = false; st.closed = true;
    emit('stream.closed', { stream: st.id, reason, ...extra });
  };
  const fence = (st) => {
    if (st.closed && st.fenced) return;
    if (!st.fenced) { emit('stream.fenced', { stream: st.id }); st.fenced = true; }
    if (!st.closed) { st.open = false; st.closed = true; emit('stream.closed', { stream: st.id, reason: 'fenced' }); }
  };
  const primeIfNeeded = (st) => {
    if (s.pv === '2025-11-25') { sendEvent(st, { priming: true }); st.primedIdx = st.ids.length - 1; }
  };

  // ---- s2c requests
  const sendRequest = (st) => {
    const rid = (s.reqPrefix || 'smp-') + (s.reqN++);
    const method = R.pick(METHODS_S2C);
    const id = s.newId(st);
    const attached = st.open;
    st.ids.push(id); st.gidx.push(s.allIds.length); s.allIds.push(id);
    const ev = { stream: st.id, event_id: id, rpc_kind: 'request', rpc_id: rid, method };
    if (!attached) ev.attached = false;
    emit('event.sent', ev);
    emit('request.sent', { stream: st.id, request_id: rid, method, event_id: id });
    if (attached && !st.halfOpen) st.delivered = st.ids.length - 1;
    s.pending.set(rid, { stream: st.id, idx: st.ids.length - 1, sentAt: t, willAnswer: !s.neverAnswer && R.p(0.93) });
    s.eventReq.set(String(id), rid);
    return rid;
  };
  const answerDue = () => {
    for (const [rid, p] of s.pending) {
      const st = s.streams.get(p.stream);
      const delivered = p.reemitted || (st && st.delivered >= p.idx);
      if (!delivered || !p.willAnswer) continue;
      if (p.answerAt == null) p.answerAt = t + R.exp(2500) + 200;
      if (t >= p.answerAt) {
        const status = G.nodes[s.node].epoch !== s.epoch ? 404 : 200;
        emit('request.answered', { request_id: rid, status });
        const rq = reqId();
        proxyLine(t, t + R.int(2, 30), { method: 'POST', path: '/mcp', status, req_headers: hdrs({ 'Mcp-Session-Id': s.sid, 'Content-Type': 'application/json', ...pvHdr() }), resp_headers: hdrs({ 'content-type': 'application/json' }), rpc_kind: 'response', rpc_id: rid, duration_ms: R.int(2, 30), principal: s.principal, conn: conn() });
        void rq;
        if (status === 200) { s.pending.delete(rid); s.answered.add(rid); }
        else { p.willAnswer = false; }
      }
    }
  };
  const pvHdr = () => (s.pv !== 'none' ? { 'MCP-Protocol-Version': s.pv } : {});
  const timeoutsDue = () => {
    for (const [rid, p] of s.pending) {
      if (A['no-timeout'] !== 'true' && t - p.sentAt > 300000) {
        emit('request.timed_out', { request_id: rid });
        s.pending.delete(rid);
      }
    }
  };
  const pendingCount = () => s.pending.size;

  // ---- the upgrade (reconnect) with proxy pairing
  const upgrade = (fields, httpExtra) => {
    const req = F.proxy && s.viaProxy ? reqId() : undefined;
    const c = conn();
    const { _node, ...fl } = fields;
    const rec = { last_event_id: null, ...fl, conn: c, principal: fields.principal || s.principal, ...pvf() };
    if (req) rec.req = req;
    emit('upgrade', rec, { node: _node || s.node });
    if (req && httpExtra) {
      const { endT, sse, ...rest } = httpExtra;
      proxyLine(t, endT || t + 5, { method: 'GET', path: '/mcp', status: fields.status, req_headers: hdrs({ Accept: 'text/event-stream', 'Mcp-Session-Id': fields.session === undefined ? s.sid : (fields.session === null ? undefined : fields.session), 'Last-Event-ID': fields.last_event_id != null ? String(fields.last_event_id) : undefined, ...pvHdr(), ...authHdr() }), resp_headers: hdrs({ 'content-type': fields.status === 200 ? 'text/event-stream' : 'application/json' }), ...(sse ? { sse_event_ids: sse.map(String) } : {}), duration_ms: Math.max(1, Math.round((endT || t + 5) - t)), conn: c, principal: rec.principal, req, ...rest });
    }
  };

  function* flush() { while (q.length) yield q.shift(); }

  // ---------------- session birth
  s.epoch = G.nodes[s.node].epoch;
  const initReq = F.proxy && s.viaProxy ? reqId() : undefined;
  {
    const rec = { session: null, last_event_id: null, decision: 'fresh', status: 200, new_session: s.sid, replayed: 0, reemitted: 0, cancelled: 0, conn: conn(), principal: s.principal, ...pvf() };
    if (initReq) rec.req = initReq;
    if (initReq || R.p(0.6)) q.push({ t, ts: t, node: s.node, rec: { kind: 'upgrade', ...rec } });
    const cr = { incarnation: 'i-' + R.hex(6), principal: s.principal, ...pvf() };
    if (R.p(0.15)) delete cr.incarnation;
    if (initReq) cr.req = initReq;
    emit('session.created', cr);
    if (initReq) proxyLine(t, t + R.int(5, 40), { method: 'POST', path: '/mcp', status: 200, req_headers: hdrs({ 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...authHdr() }), resp_headers: hdrs({ 'Mcp-Session-Id': s.sid, 'content-type': 'application/json' }), rpc_kind: 'request', rpc_method: 'initialize', rpc_id: 0, duration_ms: R.int(5, 40), principal: s.principal, conn: rec.conn, req: initReq });
    if (s.fault === 'reuse' && G.endedSessions.length) { /* handled elsewhere */ }
  }
  yield* flush();
  t += R.int(20, 400);
  // open the GET standalone stream
  const openGet = (kindOf) => {
    const st = newStream('get');
    if (kindOf === 'upgrade' || R.p(0.5)) {
      upgrade({ new_stream: st.id, decision: 'attach', status: 200, replayed: 0, reemitted: 0, cancelled: 0 }, null);
      if (R.p(0.5)) emit('stream.opened', { stream: st.id, via: 'get', conn: st.conn, principal: s.principal });
    } else emit('stream.opened', { stream: st.id, via: 'get', conn: st.conn, principal: s.principal, ...(s.useSequence ? { sequence: st.lineage } : {}) });
    primeIfNeeded(st);
    s.get = st;
    return st;
  };
  openGet();
  s.registryIdx = G.liveSessions.length;
  G.liveSessions.push(s);
  yield* flush();

  let faultDone = !s.fault;
  const markFault = (name) => { noteFault(name, s.sid, t); faultDone = true; G.stats.faults[name] = (G.stats.faults[name] || 0) + 1; };

  // ---------------- activity loop
  const lifeEnd = o.lifeMs === Infinity ? Infinity : t + o.lifeMs;
  let steps = 0;
  while (t < lifeEnd && !s.ended) {
    steps++;
    t += R.exp(o.gapMs);
    answerDue(); timeoutsDue();
    // node restarted under us: the session is gone; the client discovers it via 404s
    if (G.nodes[s.node].epoch !== s.epoch) { yield* flush(); yield* restartedFlow(); return; }
    const act = R.wpick(o.weights);
    const st = s.get;
    switch (act) {
      case 'notify': {
        if (st.closed && st.superseded) break;
        sendEvent(st, { rpc_kind: 'notification', method: R.pick(['notifications/progress', 'notifications/message', 'notifications/resources/updated']) });
        break;
      }
      case 'request': if (F.s2c) sendRequest(st); break;
      case 'call': if (F.calls) yield* toolCall(); break;
      case 'reconnect': if (F.resume) yield* reconnect(); break;
      case 'attach': if (F.attach) yield* attachFlow(); break;
      case 'trim': if (F.trims) trim(); break;
      case 'state': if (F.statechange) { emit('session.state_changed', { aspect: R.pick(['capabilities', 'subscriptions', 'auth_scope', 'tools']) }); s.lastStateChange = t; s.stateChangeCount = s.allIds.length; sendEvent(st, { rpc_kind: 'notification', method: 'notifications/tools/list_changed' }); } break;
      case 'poll': if (F.resume && s.pv === '2025-11-25') yield* pollFlow(); break;
      case 'idle': t += R.exp(o.gapMs * 5); break;
      case 'app': if (F.applogs) q.push({ t, node: s.node, app: true }); break;
    }
    if (!faultDone && steps > 4 && R.p(0.25)) yield* doFault();
    yield* flush();
  }
  if (o.vanish) { yield* flush(); return; } // unclosed streams: client vanishes, nothing logged
  // end of session
  if (!s.ended && F.ends) {
    t += R.int(50, 3000); // indep2: a client does not DELETE in the same instant as its last reconnect
    for (const [rid] of s.pending) emit('request.cancelled', { request_id: rid, reason: 'session_terminated' });
    s.pending.clear();
    for (const st2 of s.streams.values()) if (!st2.closed && R.p(0.5)) closeStream(st2, 'server');
    if (R.p(0.6)) {
      const rq = F.proxy && s.viaProxy ? reqId() : undefined;
      emit('session.terminated', { reason: 'client_delete', ...(rq ? { req: rq } : {}) });
      if (rq) proxyLine(t, t + 3, { method: 'DELETE', path: '/mcp', status: 200, req_headers: hdrs({ 'Mcp-Session-Id': s.sid, ...authHdr() }), resp_headers: {}, duration_ms: 3, principal: s.principal, req: rq, conn: conn() });
    } else {
      t += R.int(30000, 120000);
      const kept = R.p(0.2);
      emit('session.evicted', { reason: 'idle_timeout', ...(kept ? { log_evicted: false } : {}) });
    }
    s.ended = true;
    G.endedSessions.push(s.sid);
    if (G.endedSessions.length > 5000) G.endedSessions.splice(0, 2500);
    yield* flush();
    // client comes back later with the dead session id: a correct server answers 404
    if (R.p(0.15)) {
      t += R.int(1000, 20000);
      upgrade({ last_event_id: s.get.ids.length ? s.get.ids[s.get.ids.length - 1] : null, stream: undefined, decision: 'reject', status: 404, reason: 'session_not_found' }, { endT: t + 2 });
      yield* flush();
    }
  }
  yield* flush();

  // ================= sub-flows (generator closures)
  function* toolCall() {
    const rpc = s.rpcN++;
    const tool = R.pick(TOOLS);
    s.lastTool = tool;
    const args = s.principal === G.bigPrincipal && R.p(0.5) ? R.pick(G.bigArgs) : 'sha256:' + R.hex(12);
    s.lastArgs = args;
    const rq = F.proxy && s.viaProxy ? reqId() : undefined;
    const method = R.p(0.8) ? 'tools/call' : R.pick(['tools/list', 'resources/read', 'prompts/get']);
    const callRec = { rpc_id: rpc, method, ...(method === 'tools/call' ? { tool, args_hash: args } : {}), status: 200, principal: s.principal, ...pvf() };
    if (rq) callRec.req = rq;
    emit('call', callRec);
    const t0 = t;
    if (R.p(0.3)) { // plain JSON response
      t += R.int(5, 200);
      proxyLine(t0, t, { method: 'POST', path: '/mcp', status: 200, req_headers: hdrs({ 'Mcp-Session-Id': s.sid, 'Content-Type': 'application/json', ...pvHdr(), ...authHdr() }), resp_headers: hdrs({ 'content-type': 'application/json' }), rpc_kind: 'request', rpc_method: method, rpc_id: rpc, duration_ms: t - t0, principal: s.principal, req: rq, conn: conn() });
      return;
    }
    const p = newStream('post');
    emit('stream.opened', { stream: p.id, via: 'post', conn: p.conn, principal: s.principal, ...(s.useSequence ? { sequence: p.lineage } : {}) });
    primeIfNeeded(p);
    const nprog = R.int(0, 4);
    const sseSeen = [];
    for (let i = 0; i < nprog; i++) { t += R.exp(300); sseSeen.push(sendEvent(p, { rpc_kind: 'notification', method: 'notifications/progress' })); }
    if (F.s2c && R.p(0.15)) { t += R.exp(200); sendRequest(p); sseSeen.push(p.ids[p.ids.length - 1]); t += R.exp(1500); answerDue(); t += 1; answerDue(); }
    let cur = p;
    // POST stream breaks mid-call; client resumes it with GET + Last-Event-ID (only if it saw an id)
    if (F.resume && R.p(0.08) && p.delivered >= 0) {
      closeStream(p, 'error');
      const lei = p.ids[p.delivered];
      t += R.exp(300);
      sendEvent(p, { rpc_kind: 'notification', method: 'notifications/progress' }); // stored only
      t += R.int(300, 2000);
      const np = newStream('post', p.lineage);
      const replay = p.ids.slice(p.delivered + 1);
      upgrade({ last_event_id: R.p(0.5) ? String(lei) : lei, stream: p.id, new_stream: np.id, decision: 'resume', status: 200, replayed: replay.length, reemitted: 0, cancelled: 0, ...(replay.length ? { first_replayed: replay[0] } : {}) }, { endT: t + 400, sse: replay });
      p.superseded = true;
      np.delivered = -1;
      for (const [, pp] of s.pending) if (pp.stream === p.id) pp.reemitted = true; // replayed to client
      cur = np;
    }
    t += R.exp(400) + 10;
    const respId = sendEvent(cur, { rpc_kind: 'response', rpc_id: rpc });
    sseSeen.push(respId);
    t += R.int(1, 20);
    closeStream(cur, 'server');
    if (cur === p) proxyLine(t0, t, { method: 'POST', path: '/mcp', status: 200, req_headers: hdrs({ 'Mcp-Session-Id': s.sid, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...pvHdr(), ...authHdr() }), resp_headers: hdrs({ 'content-type': 'text/event-stream' }), sse_event_ids: sseSeen.map(String), rpc_kind: 'request', rpc_method: method, rpc_id: rpc, duration_ms: Math.round(t - t0), principal: s.principal, req: rq, conn: p.conn });
    // retried call executed twice? correct server dedups (executed:false)
    if (F.retries && R.p(0.03) && method === 'tools/call') {
      t += R.int(200, 3000);
      emit('call', { rpc_id: rpc, method, tool, args_hash: args, status: 200, executed: false, principal: s.principal, ...pvf() });
    }
  }

  function* reconnect(opts = {}) {
    const st = s.get;
    if (st.superseded) return;
    // mode of disconnection
    const mode = opts.mode || R.wpick({ known: 5, half: 3, conflict: 1 });
    let lostAfter = st.delivered;
    if (mode === 'known') {
      closeStream(st, R.pick(['client', 'error']));
      // notifications keep flowing into the buffer while the client is away (attached:false)
      const k = R.int(0, 3);
      for (let i = 0; i < k; i++) { t += R.exp(400); if (F.s2c && R.p(0.2)) sendRequest(st); else sendEvent(st, { rpc_kind: 'notification', method: 'notifications/message' }); }
      t += R.int(200, 4000);
    } else {
      st.halfOpen = true; // server does not know; writes go nowhere
      const k = R.int(0, 3);
      for (let i = 0; i < k; i++) { t += R.exp(400); sendEvent(st, { rpc_kind: 'notification', method: 'notifications/message' }); }
      t += R.int(200, 3000);
    }
    yield* flush();
    // cursor: last delivered id on that stream (or none)
    if (lostAfter < 0) { yield* attachFlow({ oldClosedAlready: mode === 'known' }); return; }
    let lei = st.ids[lostAfter];
    // retention: was the cursor trimmed?
    const trimmed = st.trimIdx != null && st.trimIdx > lostAfter;
    const stateChanged = s.stateChangeCount != null && s.stateChangeCount > st.gidx[lostAfter];
    const answeredInWindow = st.ids.slice(lostAfter + 1).some((id) => s.answered.has(s.eventReq.get(String(id))));
    const otherNode = F.crossnode && R.p(0.05) ? R.pick(G.serverNodes.filter((n) => n !== s.node)) : undefined;
    if (mode === 'conflict' && st.halfOpen) {
      upgrade({ last_event_id: String(lei), stream: st.id, decision: 'reject', status: 409, reason: 'Conflict: stream still open', replayed: 0 }, { endT: t + 2 });
      t += R.int(100, 4000); // fence within grace
      fence(st);
      t += R.int(50, 800);
    } else if (st.halfOpen) {
      fence(st);
      t += R.int(1, 5); // indep2: fence strictly before the upgrade, even across nodes with ms-precision clocks
    }
    st.halfOpen = false;
    if (trimmed || stateChanged || answeredInWindow) {
      if (o.noReset || R.p(0.5)) {
        upgrade({ last_event_id: String(lei), stream: st.id, decision: 'reject', status: 409, reason: 'resumption_unavailable', replayed: 0 }, { endT: t + 2 });
        t += R.int(50, 500);
        yield* attachFlow({ oldClosedAlready: true });
      } else {
        yield* resetFlow(lei, st);
      }
      return;
    }
    const ns = newStream('get', st.lineage);
    const replay = st.ids.slice(lostAfter + 1);
    const f = { last_event_id: R.p(0.5) ? String(lei) : lei, stream: st.id, new_stream: ns.id, decision: 'resume', status: 200, replayed: replay.length, reemitted: 0, cancelled: 0 };
    if (replay.length) f.first_replayed = replay[0];
    if (F.replaydetail && replay.length && R.p(0.3)) f.replayed_ids = replay;
    if (otherNode) f._node = otherNode;
    upgrade(f, { endT: t + R.int(1000, 60000), sse: replay });
    if (otherNode) { s.node = otherNode; s.epoch = G.nodes[otherNode].epoch; }
    if (F.replaydetail && R.p(0.3)) for (const id of replay) emit('event.replayed', { stream: ns.id, event_id: id, of_stream: st.id });
    st.superseded = true;
    for (const [, p] of s.pending) if (p.stream === st.id) p.reemitted = true; // they were in the replay or already delivered
    ns.delivered = -1;
    s.get = ns;
    if (R.p(0.3)) emit('stream.opened', { stream: ns.id, via: 'get', conn: ns.conn, principal: s.principal });
    yield* flush();
  }

  function* pollFlow() {
    const st = s.get;
    if (st.superseded || st.closed) return;
    const retry = R.pick([1000, 2000, 3000, 5000]);
    closeStream(st, 'poll', { retry_ms: retry });
    t += retry + R.int(0, 200);
    if (st.delivered < 0) { yield* attachFlow({ oldClosedAlready: true }); return; }
    const lei = st.ids[st.delivered];
    const ns = newStream('get', st.lineage);
    const replay = st.ids.slice(st.delivered + 1);
    upgrade({ last_event_id: String(lei), stream: st.id, new_stream: ns.id, decision: 'resume', status: 200, replayed: replay.length, reemitted: 0, cancelled: 0, ...(replay.length ? { first_replayed: replay[0] } : {}) }, { endT: t + 30000, sse: replay });
    st.superseded = true;
    for (const [, p] of s.pending) if (p.stream === st.id) p.reemitted = true;
    ns.delivered = -1;
    s.get = ns;
    yield* flush();
  }

  function* attachFlow(opts = {}) {
    // client restart: no Last-Event-ID. Prior GET stream must be closed/fenced first.
    const old = s.get;
    if (!old.closed) fence(old);
    t += R.int(1, 50);
    const ns = newStream('get');
    const np = pendingCount();
    let reemitted = np, cancelled = 0;
    if (np && R.p(0.3)) { cancelled = np; reemitted = 0; }
    upgrade({ new_stream: ns.id, decision: 'attach', status: 200, replayed: 0, reemitted, cancelled }, { endT: t + R.int(1000, 60000) });
    old.superseded = true;
    for (const st2 of s.streams.values()) if (st2.via === 'get' && st2 !== ns) st2.superseded = true;
    s.get = ns;
    primeIfNeeded(ns);
    if (cancelled) { for (const [rid] of s.pending) emit('request.cancelled', { request_id: rid, reason: 'stream_replaced' }); s.pending.clear(); }
    else {
      for (const [rid, p] of [...s.pending]) {
        if (R.p(0.5)) { // re-issue under a fresh id on the new stream
          const nrid = rid + '.r' + R.int(1, 9);
          emit('request.reissued', { request_id: rid, new_request_id: nrid, stream: ns.id });
          s.pending.delete(rid);
          const id = s.newId(ns); ns.ids.push(id); ns.gidx.push(s.allIds.length); s.allIds.push(id);
          emit('event.sent', { stream: ns.id, event_id: id, rpc_kind: 'request', rpc_id: nrid, method: 'sampling/createMessage' });
          emit('request.sent', { stream: ns.id, request_id: nrid, method: 'sampling/createMessage', event_id: id });
          ns.delivered = ns.ids.length - 1;
          s.pending.set(nrid, { stream: ns.id, idx: ns.ids.length - 1, sentAt: t, willAnswer: p.willAnswer });
        } else p.reemitted = true;
      }
    }
    yield* flush();
  }

  function* resetFlow(lei, st) {
    // unresumable cursor: fresh session, new id, reset signalled
    const newSid = sessionId(s.sidStyle);
    const ns = newStream('get');
    upgrade({ last_event_id: String(lei), stream: st.id, new_stream: ns.id, new_session: newSid, decision: 'fresh', status: 200, reason: 'resumption_unavailable', reset_signalled: true, replayed: 0, reemitted: 0, cancelled: 0 }, { endT: t + 1000 });
    // the old session ends
    for (const [rid] of s.pending) emit('request.cancelled', { request_id: rid, reason: 'session_reset' });
    s.pending.clear();
    const oldSid = s.sid;
    t += 2;
    s.sid = newSid;
    emit('session.created', { incarnation: 'i-' + R.hex(6), principal: s.principal, ...pvf() });
    sendEvent(ns, { rpc_kind: 'notification', method: 'notifications/session_reset' });
    s.get = ns;
    // retire old session
    q.push({ t: t + 1, ts: t + 1, node: s.node, rec: { kind: 'session.terminated', session: oldSid, reason: 'reset' } });
    t += 2;
    yield* flush();
  }

  function trim() {
    const st = s.get;
    if (st.ids.length < 4) return;
    const idx = Math.min(st.ids.length - 1, Math.max(st.trimIdx || 0, st.delivered - R.int(0, 2)) + R.int(0, 1));
    if (idx <= (st.trimIdx || 0)) return;
    st.trimIdx = idx;
    if (R.p(0.8)) emit('buffer.trimmed', { stream: st.id, oldest_retained: st.ids[idx] });
    else emit('buffer.trimmed', { oldest_retained: st.ids[idx] }); // session-wide (single stream in use)
  }

  function* restartedFlow() {
    // the node restarted: the session is gone. Client posts answers/calls -> 404s, GET -> 404, re-initialize.
    const node = s.node;
    if (R.p(0.5)) {
      for (const [rid] of s.pending) emit('request.cancelled', { request_id: rid, reason: 'node_restart' });
      s.pending.clear();
      emit('session.evicted', { reason: 'node_restart' });
      t += R.int(1, 200);
    }
    const n404 = R.int(2, 8);
    for (let i = 0; i < n404; i++) {
      t += R.exp(600);
      if (R.p(0.5) && s.pending.size) {
        const rid = [...s.pending.keys()][0]; s.pending.delete(rid);
        emit('request.answered', { request_id: rid, status: 404 });
      } else if (R.p(0.6)) {
        const rq = F.proxy && s.viaProxy ? reqId() : undefined;
        const rpc = s.rpcN++;
        emit('call', { rpc_id: rpc, method: 'tools/call', tool: s.lastTool || R.pick(TOOLS), args_hash: s.lastArgs || 'sha256:' + R.hex(12), status: 404, principal: s.principal, ...(rq ? { req: rq } : {}), ...pvf() });
        if (rq) proxyLine(t, t + 3, { method: 'POST', path: '/mcp', status: 404, req_headers: hdrs({ 'Mcp-Session-Id': s.sid, 'Content-Type': 'application/json', ...authHdr() }), resp_headers: hdrs({ 'content-type': 'application/json' }), rpc_kind: 'request', rpc_method: 'tools/call', rpc_id: rpc, duration_ms: 3, principal: s.principal, req: rq, conn: conn() });
      } else {
        upgrade({ last_event_id: s.get.delivered >= 0 ? String(s.get.ids[s.get.delivered]) : null, stream: undefined, decision: 'reject', status: 404, reason: 'session_not_found' }, { endT: t + 2 });
      }
    }
    yield* flush();
    // re-initialize: a new session (handled by spawning a continuation actor with the same principal)
    if (G.spawning) {
      const o2 = { ...o, start: t + R.int(100, 2000), sid: sessionId(o.sidStyle), node: R.pick(G.serverNodes), lifeMs: R.exp(o.lifeMeanMs || 120000), fault: null };
      G.actorsToAdd.push(sessionActor(o2));
    }
  }

  // ---------------- faults
  function* doFault() {
    const f = s.fault;
    const st = s.get;
    switch (f) {
      case 'truncation': {
        if (st.delivered < 0 || st.superseded) return;
        closeStream(st, 'error');
        const lei = st.ids[st.delivered];
        for (let i = 0; i < 3; i++) { t += 100; sendEvent(st, { rpc_kind: 'notification', method: 'notifications/message' }); }
        t += 1000;
        const ns = newStream('get', st.lineage);
        const replay = st.ids.slice(st.delivered + 1);
        upgrade({ last_event_id: String(lei), stream: st.id, new_stream: ns.id, decision: 'resume', status: 200, replayed: replay.length - 2, reemitted: 0, cancelled: 0, first_replayed: replay[2] }, { endT: t + 5000, sse: replay.slice(2) });
        st.superseded = true; s.get = ns; markFault(f); return;
      }
      case 'trimmed-resume': {
        if (st.ids.length < 3 || st.superseded) return;
        closeStream(st, 'client');
        const lei = st.ids[0];
        emit('buffer.trimmed', { stream: st.id, oldest_retained: st.ids[st.ids.length - 1] });
        t += 1500;
        const ns = newStream('get', st.lineage);
        upgrade({ last_event_id: String(lei), stream: st.id, new_stream: ns.id, decision: 'resume', status: 200, replayed: 1, reemitted: 0, cancelled: 0, first_replayed: st.ids[st.ids.length - 1] }, { endT: t + 5000 });
        st.superseded = true; s.get = ns; markFault(f); return;
      }
      case 'phantom': {
        if (s.idStyle !== 'int' && s.idStyle !== 'intstr' || st.superseded) return;
        closeStream(st, 'error'); t += 800;
        const ns = newStream('get', st.lineage);
        upgrade({ last_event_id: String(s.idCounter + 5000), stream: st.id, new_stream: ns.id, decision: 'resume', status: 200, replayed: 0, reemitted: 0, cancelled: 0 }, { endT: t + 3000 });
        st.superseded = true; s.get = ns; markFault(f); return;
      }
      case 'foreign': {
        const other = G.liveSessions[Math.floor(R.f() * G.liveSessions.length)];
        if (!other || other === s || !other.allIds.length || st.superseded) return;
        const fid = other.allIds[0];
        if (s.allIds.some((x) => String(x) === String(fid))) return;
        closeStream(st, 'error'); t += 800;
        const ns = newStream('get', st.lineage);
        upgrade({ last_event_id: String(fid), stream: st.id, new_stream: ns.id, decision: 'resume', status: 200, replayed: Math.min(2, other.allIds.length - 1), reemitted: 0, cancelled: 0, ...(other.allIds.length > 1 ? { first_replayed: other.allIds[1] } : {}) }, { endT: t + 3000 });
        st.superseded = true; s.get = ns; markFault(f); return;
      }
      case 'lei-nosession': {
        if (st.delivered < 0) return;
        const ns = newStream('get');
        upgrade({ session: null, last_event_id: String(st.ids[st.delivered]), new_stream: ns.id, decision: 'resume', status: 200, replayed: 0, reemitted: 0, cancelled: 0 }, { endT: t + 2000 });
        ns.closed = true; emit('stream.closed', { stream: ns.id, reason: 'client' });
        markFault(f); return;
      }
      case 'regression': {
        if (s.idStyle !== 'int' && s.idStyle !== 'intstr') return;
        s.idCounter -= R.int(1, 3); markFault(f); return;
      }
      case 'after-end': {
        if (st.delivered < 0) return;
        for (const [rid] of s.pending) emit('request.cancelled', { request_id: rid });
        s.pending.clear();
        fence(st);
        emit('session.terminated', { reason: 'policy' });
        t += 2000;
        const ns = newStream('get', st.lineage);
        upgrade({ last_event_id: String(st.ids[st.delivered]), stream: st.id, new_stream: ns.id, decision: 'resume', status: 200, replayed: st.ids.length - 1 - st.delivered, reemitted: 0, cancelled: 0, ...(st.ids.length - 1 > st.delivered ? { first_replayed: st.ids[st.delivered + 1] } : {}) }, { endT: t + 2000 });
        closeStream(ns, 'client');
        s.ended = true; markFault(f); return;
      }
      case 'state-change': {
        if (st.delivered < 0 || st.superseded) return;
        const lei = st.ids[st.delivered];
        t += 100;
        emit('session.state_changed', { aspect: 'capabilities' });
        closeStream(st, 'error'); t += 900;
        const ns = newStream('get', st.lineage);
        const replay = st.ids.slice(st.delivered + 1);
        upgrade({ last_event_id: String(lei), stream: st.id, new_stream: ns.id, decision: 'resume', status: 200, replayed: replay.length, reemitted: 0, cancelled: 0, ...(replay.length ? { first_replayed: replay[0] } : {}) }, { endT: t + 3000 });
        st.superseded = true; s.get = ns; markFault(f); return;
      }
      case 'fork': {
        const dead = G.endedSessions[Math.floor(R.f() * G.endedSessions.length)];
        if (!dead) return;
        const ns = newStream('get');
        const sidSave = s.sid;
        s.sid = dead;
        upgrade({ last_event_id: '7', new_stream: ns.id, new_session: dead, decision: 'fresh', status: 200, replayed: 0, reemitted: 0, cancelled: 0 }, { endT: t + 1000 });
        emit('session.created', { incarnation: 'i-' + R.hex(6), principal: s.principal });
        fence(ns);
        s.sid = sidSave; markFault(f); return;
      }
      case 'reset': {
        if (st.delivered < 0 || st.superseded) return;
        fence(st);
        emit('buffer.trimmed', { stream: st.id, oldest_retained: st.ids[st.ids.length - 1] });
        t += 1000;
        const ns = newStream('get');
        upgrade({ last_event_id: String(st.ids[0]), stream: st.id, new_stream: ns.id, decision: 'fresh', status: 200, replayed: 0, reemitted: 0, cancelled: 0 }, { endT: t + 3000 });
        st.superseded = true; s.get = ns; markFault(f); return;
      }
      case 'replay-attach': {
        if (st.ids.length < 2) return;
        fence(st); t += 500;
        const ns = newStream('get');
        upgrade({ new_stream: ns.id, decision: 'attach', status: 200, replayed: 2, reemitted: pendingCount(), cancelled: 0 }, { endT: t + 3000 });
        for (const [, p] of s.pending) p.reemitted = true;
        st.superseded = true; s.get = ns; markFault(f); return;
      }
      case 'pending-not-reemitted': {
        const rid = sendRequest(st);
        t += 50; fence(st); t += 800;
        const ns = newStream('get');
        upgrade({ new_stream: ns.id, decision: 'attach', status: 200, replayed: 0, reemitted: 0, cancelled: 0 }, { endT: t + 3000 });
        s.pending.get(rid).willAnswer = false;
        st.superseded = true; s.get = ns; markFault(f); return;
      }
      case 'dup-reemit': {
        if (st.delivered < 0 || st.superseded) return;
        if (!s.pending.size) sendRequest(st);
        closeStream(st, 'error'); t += 700;
        const ns = newStream('get', st.lineage);
        const replay = st.ids.slice(st.delivered + 1);
        upgrade({ last_event_id: String(st.ids[st.delivered]), stream: st.id, new_stream: ns.id, decision: 'resume', status: 200, replayed: replay.length, reemitted: s.pending.size, cancelled: 0, ...(replay.length ? { first_replayed: replay[0] } : {}) }, { endT: t + 3000 });
        for (const [, p] of s.pending) p.reemitted = true;
        st.superseded = true; s.get = ns; markFault(f); return;
      }
      case 'dual-writer': case 'write-superseded': {
        if (st.delivered < 0 || st.superseded) return;
        t += 500;
        const ns = newStream('get', st.lineage);
        const replay = st.ids.slice(st.delivered + 1);
        upgrade({ last_event_id: String(st.ids[st.delivered]), stream: st.id, new_stream: ns.id, decision: 'resume', status: 200, replayed: replay.length, reemitted: 0, cancelled: 0, ...(replay.length ? { first_replayed: replay[0] } : {}) }, { endT: t + 3000 });
        st.superseded = true; s.get = ns;
        if (f === 'write-superseded') { t += 300; st.open = true; sendEvent(st, { rpc_kind: 'notification', method: 'notifications/message' }); }
        t += R.int(5000, 60000);
        closeStream(st, 'half_open');
        markFault(f); return;
      }
      case 'answered-replayed': {
        if (st.delivered < 0 || st.superseded) return;
        const lei = st.ids[st.delivered];
        const rid = sendRequest(st); t += 500;
        emit('request.answered', { request_id: rid, status: 200 }); s.pending.delete(rid); s.answered.add(rid);
        closeStream(st, 'error'); t += 500;
        const ns = newStream('get', st.lineage);
        const replay = st.ids.slice(st.ids.indexOf(lei) + 1);
        upgrade({ last_event_id: String(lei), stream: st.id, new_stream: ns.id, decision: 'resume', status: 200, replayed: replay.length, reemitted: 0, cancelled: 0, first_replayed: replay[0] }, { endT: t + 3000 });
        st.superseded = true; s.get = ns; markFault(f); return;
      }
      case 'stranded': {
        const rpc = s.rpcN++;
        emit('call', { rpc_id: rpc, method: 'tools/call', tool: 'summarize', args_hash: 'sha256:' + R.hex(12), status: 200, principal: s.principal });
        const p = newStream('post');
        emit('stream.opened', { stream: p.id, via: 'post', conn: p.conn });
        t += 300; closeStream(p, 'error');
        t += 2000; sendEvent(p, { rpc_kind: 'response', rpc_id: rpc });
        markFault(f); return;
      }
      case 'orphan': {
        const rid = sendRequest(st);
        s.pending.get(rid).willAnswer = false;
        t += 100; closeStream(st, 'error');
        t += 1000;
        const ns = newStream('get', st.lineage);
        const replay = st.ids.slice(st.delivered + 1);
        // resumed but the request was never delivered / answered; it times out later
        upgrade({ last_event_id: String(st.ids[Math.max(0, st.delivered)]), stream: st.id, new_stream: ns.id, decision: 'resume', status: 200, replayed: replay.length, reemitted: 0, cancelled: 0, ...(replay.length ? { first_replayed: replay[0] } : {}) }, { endT: t + 3000 });
        st.superseded = true; s.get = ns;
        t += 1000;
        emit('request.timed_out', { request_id: rid }); s.pending.delete(rid);
        markFault(f); return;
      }
      case 'stale-writer': {
        if (st.delivered < 0 || st.superseded) return;
        for (let i = 0; i < 4; i++) { t += 2500; upgrade({ last_event_id: String(st.ids[st.delivered]), stream: st.id, decision: 'reject', status: 409, reason: 'Conflict: stream still open' }, { endT: t + 2 }); }
        t += 30000; closeStream(st, 'half_open');
        t += 100; yield* attachFlow({ oldClosedAlready: true });
        markFault(f); return;
      }
      case 'cross-principal': {
        if (st.delivered < 0 || st.superseded || st.ids.length - st.delivered < 2) return;
        closeStream(st, 'error'); t += 500;
        const ns = newStream('get', st.lineage);
        const replay = st.ids.slice(st.delivered + 1);
        upgrade({ last_event_id: String(st.ids[st.delivered]), stream: st.id, new_stream: ns.id, decision: 'resume', status: 200, replayed: replay.length, reemitted: 0, cancelled: 0, first_replayed: replay[0], principal: 'user:mallory-' + R.hex(4) }, { endT: t + 3000 });
        st.superseded = true; s.get = ns; markFault(f); return;
      }
      case 'dup-call': {
        const rpc = s.rpcN++;
        const args = 'sha256:' + R.hex(12);
        emit('call', { rpc_id: rpc, method: 'tools/call', tool: 'send_email', args_hash: args, status: 200, principal: s.principal });
        t += R.int(500, 5000);
        emit('call', { rpc_id: rpc, method: 'tools/call', tool: 'send_email', args_hash: args, status: 200, principal: s.principal });
        markFault(f); return;
      }
      case 'dup-call-args': {
        const args = 'sha256:' + R.hex(12);
        const rpc = s.rpcN++;
        emit('call', { rpc_id: rpc, method: 'tools/call', tool: 'create_ticket', args_hash: args, status: 200, principal: s.principal });
        const p = newStream('post'); emit('stream.opened', { stream: p.id, via: 'post', conn: p.conn });
        primeIfNeeded(p);
        t += 400; closeStream(p, 'error');
        t += R.int(500, 5000);
        emit('call', { rpc_id: s.rpcN++, method: 'tools/call', tool: 'create_ticket', args_hash: args, status: 200, principal: s.principal });
        markFault(f); return;
      }
      case 'reuse': {
        emit('session.created', { incarnation: 'i-' + R.hex(6), principal: s.principal });
        markFault(f); return;
      }
      default: faultDone = true;
    }
  }
}

// ---------------------------------------------------------------- stateless (2026-07-28) requests
function* statelessActor(o) {
  let t = o.start;
  const node = o.node, principal = o.principal;
  const q = [];
  const emit = (kind, f) => q.push({ t, ts: t, node, rec: { kind, ...f, protocol_version: '2026-07-28' } });
  G.stats.stateless++;
  const pv = { protocol_version: '2026-07-28' };
  const nCalls = R.int(1, 6);
  const tool = R.pick(TOOLS); const args = 'sha256:' + R.hex(12);
  for (let i = 0; i < nCalls; i++) {
    t += R.exp(3000);
    const rpc = 'r-' + R.hex(8);
    const nullStyle = R.p(0.5);
    emit('call', { ...(nullStyle ? { session: null } : {}), rpc_id: rpc, method: 'tools/call', tool, args_hash: args, status: 200, principal, ...pv });
    const sid = 'p-' + R.uuid();
    emit('stream.opened', { ...(nullStyle ? { session: null } : {}), stream: sid, via: 'post', conn: conn(), principal, ...pv });
    let eid = R.int(1, 5);
    for (let k = 0; k < R.int(0, 3); k++) { t += R.exp(300); emit('event.sent', { stream: sid, event_id: eid++, rpc_kind: 'notification', method: 'notifications/progress' }); }
    if (F.retries && R.p(0.05)) {
      // broken stream: client re-issues under a new id; correct server dedups
      t += 100; emit('stream.closed', { stream: sid, reason: 'error' });
      t += R.int(200, 2000);
      emit('call', { rpc_id: 'r-' + R.hex(8), method: 'tools/call', tool, args_hash: args, status: 200, executed: false, principal, ...pv });
      continue;
    }
    t += R.exp(500);
    emit('event.sent', { stream: sid, event_id: eid++, rpc_kind: 'response', rpc_id: rpc });
    t += 2; emit('stream.closed', { stream: sid, reason: 'server' });
    if (o.fault === 'stateless-replay' && i === 0) {
      t += 500;
      emit('upgrade', { session: null, last_event_id: String(eid - 1), stream: sid, new_stream: 'p-' + R.uuid(), decision: 'resume', status: 200, replayed: 1, reemitted: 0, cancelled: 0, first_replayed: eid - 1, principal, ...pv });
      noteFault('stateless-replay', null, t);
      G.stats.faults['stateless-replay'] = (G.stats.faults['stateless-replay'] || 0) + 1;
    }
    if (o.fault === 'stateless-session' && i === 0) {
      const minted = 'S-' + R.hex(10);
      emit('session.created', { session: minted, principal, ...pv });
      noteFault('stateless-session', minted, t);
      G.stats.faults['stateless-session'] = (G.stats.faults['stateless-session'] || 0) + 1;
    }
  }
  while (q.length) yield q.shift();
}

// ---------------------------------------------------------------- proxy-only clients
function* proxyOnlyActor(o) {
  let t = o.start;
  const q = [];
  G.stats.proxyOnly++;
  const principal = 'tkfp:' + R.hex(8);
  const sid = R.hex(32);
  const hk = R.pick(['lower', 'title']);
  const H = (h) => { const r = {}; for (const k in h) if (h[k] !== undefined) r[hk === 'lower' ? k.toLowerCase() : k] = h[k]; return r; };
  const line = (ts, endT, f) => {
    const it = { t: F.jitter ? endT : ts, ts, node: G.proxyNode, rec: { kind: 'http', path: '/mcp', ...f, duration_ms: Math.max(1, Math.round(endT - ts)), principal, conn: 'px-' + (G.nextConn++) } };
    if (F.jitter) G.deferred.push(it); else q.push(it);
  };
  const auth = { Authorization: 'Bearer ' + R.b64(40) };
  line(t, t + R.int(5, 40), { method: 'POST', status: 200, req_headers: H({ 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...auth }), resp_headers: H({ 'Mcp-Session-Id': sid, 'Content-Type': 'application/json' }), rpc_kind: 'request', rpc_method: 'initialize', rpc_id: 0 });
  t += R.int(50, 500);
  let ev = 1; let lastSeen = null; let rpc = 1;
  const rounds = R.int(1, 6);
  for (let r = 0; r < rounds; r++) {
    const gs = t; const ids = [];
    const n = R.int(0, 6);
    for (let i = 0; i < n; i++) ids.push(String(ev++));
    const dur = R.int(2000, 60000);
    // POSTs during the GET
    const ncalls = R.int(0, 3);
    for (let i = 0; i < ncalls; i++) {
      const ct = gs + R.int(0, dur);
      const id = rpc++;
      line(ct, ct + R.int(10, 900), { method: 'POST', status: 200, req_headers: H({ 'Mcp-Session-Id': sid, 'Content-Type': 'application/json', ...auth }), resp_headers: H({ 'Content-Type': R.p(0.5) ? 'text/event-stream' : 'application/json' }), rpc_kind: 'request', rpc_method: 'tools/call', rpc_id: id });
    }
    line(gs, gs + dur, { method: 'GET', status: 200, req_headers: H({ Accept: 'text/event-stream', 'Mcp-Session-Id': sid, ...(lastSeen != null ? { 'Last-Event-ID': lastSeen } : {}), ...auth }), resp_headers: H({ 'Content-Type': 'text/event-stream' }), sse_event_ids: ids });
    if (ids.length) lastSeen = ids[ids.length - 1];
    t = gs + dur + R.int(100, 3000);
  }
  if (R.p(0.5)) line(t, t + 3, { method: 'DELETE', status: 200, req_headers: H({ 'Mcp-Session-Id': sid, ...auth }), resp_headers: {} });
  q.sort((a, b) => a.t - b.t);
  while (q.length) yield q.shift();
}

// ---------------------------------------------------------------- spawner / shapes
function pickPv() { const v = R.wpick(PV_MIX); return v; }
function sessionOpts(start, extra = {}) {
  const pv = pickPv();
  const principal = F.bigprincipal && R.p(0.15) ? G.bigPrincipal : R.pick(G.principals);
  const chaos = SHAPE === 'chaos' && F.longids;
  const sidStyle = chaos ? R.wpick({ hex: 3, uuid: 3, seq: 1, b64: 2, long: 1 }) : R.wpick({ hex: 4, uuid: 2, seq: 1 });
  const idStyle = A['id-style'] ? A['id-style'] : chaos ? R.wpick({ int: 3, intstr: 2, sdk: 2, long: 2, uuid: 2 }) : R.wpick({ int: 6, intstr: 2, sdk: F.longids ? 2 : 0.0001 });
  const fault = F.faults && R.p(FAULT_RATE) ? R.pick(FAULTS.filter((f) => !f.startsWith('stateless'))) : null;
  return {
    start, sid: sessionId(sidStyle), sidStyle, idStyle, streamStyle: chaos ? R.pick(['short', 'uuid', 'long']) : 'short',
    node: R.pick(G.serverNodes), pv, principal, viaProxy: F.proxy && R.p(0.4), hdrStyle: R.pick(['lower', 'title', 'upper']),
    useSequence: F.sequence && idStyle === 'sdk', fault,
    lifeMs: R.exp(150000) + 5000, lifeMeanMs: 150000, gapMs: 1500,
    weights: { notify: 30, request: 6, call: 14, reconnect: 4, attach: 1, trim: 2, state: 0.7, poll: pv === '2025-11-25' ? 3 : 0, idle: 3, app: 2 },
    ...extra,
  };
}

function* spawner() {
  let t = T0;
  // prod: arrival rate tuned so thousands of sessions interleave
  const meanGap = SHAPE === 'chaos' ? 120 : 150;
  let nextRestart = T0 + R.int(120000, 300000);
  if (SHAPE === 'chaos') {
    if (F.longsession) G.actorsToAdd.push(sessionActor(sessionOpts(T0 + 50, { lifeMs: Infinity, gapMs: 800, fault: null, sid: 'S-LONGLIVED-' + R.hex(6), idStyle: 'int', node: G.serverNodes[1] })));
    if (F.midstart) for (let i = 0; i < 200; i++) G.actorsToAdd.push(sessionActor(sessionOpts(T0 - R.int(1000, 600000))));
  }
  while (G.spawning) {
    t += R.exp(meanGap);
    yield { t, spawn: true };
    const r = R.f();
    if (F.revisions && r < (A['stateless-frac'] != null ? parseFloat(A['stateless-frac']) : 0.05)) { G.actorsToAdd.push(statelessActor({ start: t, node: R.pick(G.serverNodes), principal: R.pick(G.principals), fault: F.faults && R.p(FAULT_RATE * 2) ? R.pick(['stateless-replay', 'stateless-session'].filter((x) => FAULTS.includes(x))) : null })); continue; }
    if (F.proxyonly && r < 0.12) { G.actorsToAdd.push(proxyOnlyActor({ start: t })); continue; }
    let extra = {};
    if (SHAPE === 'chaos') {
      if (F.manystreams && R.p(0.003)) extra = { lifeMs: R.int(600000, 3600000), gapMs: 400, weights: { notify: 10, call: 30, reconnect: 15, attach: 2, trim: 2, request: 4, poll: 0, idle: 0, app: 0, state: 0 } };
      else if (F.manypending && R.p(0.003)) extra = { lifeMs: R.int(600000, 1800000), gapMs: 500, neverAnswer: true, weights: { notify: 5, request: 30, reconnect: 2, attach: 1, call: 2, idle: 0, app: 0, trim: 0, state: 0, poll: 0 } };
      else if (F.unclosed && R.p(0.1)) extra = { vanish: true };
      else extra = { lifeMs: R.exp(40000) + 2000 };
    }
    G.actorsToAdd.push(sessionActor(sessionOpts(t, extra)));
    if (F.restarts && t > nextRestart) {
      const n = R.pick(G.serverNodes);
      G.nodes[n].epoch++;
      nextRestart = t + R.int(180000, 500000);
      G.stats.restarts = (G.stats.restarts || 0) + 1;
    }
    if (F.applogs && R.p(0.3)) G.actorsToAdd.push((function* () { yield { t, node: R.pick(G.serverNodes), app: true }; })());
  }
}

function* soakShape() {
  // one client, ONE session, whole log. rounds of disconnect/reconnect with Last-Event-ID, calls, sampling, attaches, trims
  yield* sessionActor({
    start: T0 + 10, sid: R.hex(32), sidStyle: 'hex', idStyle: A['id-style'] || 'int', streamStyle: 'short', node: 'mcp-a', pv: F.revisions ? '2025-11-25' : 'none',
    principal: 'svc:soak-client', viaProxy: F.proxy, noReset: true, neverAnswer: A['never-answer'] === 'true', hdrStyle: 'lower', useSequence: false, fault: null, lifeMs: Infinity, gapMs: 250,
    weights: { notify: 25, request: F.s2c ? 6 : 0, call: 12, reconnect: 5, attach: 0.6, trim: 2.5, state: 0.2, poll: 2, idle: 0.5, app: F.applogs ? 1 : 0 },
  });
}

// ---------------------------------------------------------------- stress shapes (bisect helpers)
function* hammerShape() {
  // a client whose session died keeps POSTing (answers, calls, notifications) and the server answers 404; proxy sees it too
  let t = T0; const sid = 'S-DEAD-' + R.hex(8); const principal = 'user:hammer';
  yield { t, ts: t, node: 'mcp-a', rec: { kind: 'session.created', session: sid, incarnation: 'i-1', principal } };
  t += 1000; yield { t, ts: t, node: 'mcp-a', rec: { kind: 'session.evicted', session: sid, reason: 'idle_timeout' } };
  let rpc = 1;
  for (;;) {
    t += R.exp(A['gap'] ? parseFloat(A['gap']) : 40);
    const k = R.wpick({ call: 3, ans: 2, http: 3, httpn: 1 });
    if (k === 'call') yield { t, ts: t, node: 'mcp-a', rec: { kind: 'call', session: sid, rpc_id: rpc++, method: 'tools/call', tool: 'run_tests', args_hash: 'sha256:aaaa', status: 404, principal } };
    else if (k === 'ans') yield { t, ts: t, node: 'mcp-a', rec: { kind: 'request.answered', session: sid, request_id: 'smp-' + R.int(1, 50), status: 404 } };
    else yield { t, ts: t, node: G.proxyNode, rec: { kind: 'http', method: 'POST', path: '/mcp', status: 404, req_headers: { 'mcp-session-id': sid, 'content-type': 'application/json' }, resp_headers: { 'content-type': 'application/json' }, rpc_kind: k === 'httpn' ? 'notification' : 'request', rpc_method: k === 'httpn' ? 'notifications/cancelled' : 'tools/call', ...(k === 'httpn' ? {} : { rpc_id: rpc - 1 }), duration_ms: R.int(1, 30), principal } };
  }
}
function* dupcallsShape() {
  // one principal, many short sessions on several nodes, same tool and args over and over, with 404s between
  let t = T0; let n = 0; const principal = 'svc:ci-runner';
  for (;;) {
    const sid = 'S-' + (n++); const node = R.pick(G.serverNodes);
    yield { t, ts: t, node, rec: { kind: 'session.created', session: sid, incarnation: 'i-' + n, principal } };
    for (let i = 0; i < R.int(1, 6); i++) {
      t += R.exp(A['gap'] ? parseFloat(A['gap']) : 200);
      yield { t, ts: t, node, rec: { kind: 'call', session: sid, rpc_id: i + 1, method: 'tools/call', tool: 'run_tests', args_hash: 'sha256:' + (A['args-pool'] ? R.int(1, parseInt(A['args-pool'])) : 1), status: R.p(0.2) ? 404 : 200, principal } };
    }
    t += R.exp(100);
    if (R.p(0.5)) yield { t, ts: t, node, rec: { kind: 'session.terminated', session: sid, reason: 'client_delete' } };
  }
}
function* reuseShape() {
  // a buggy server that mints the same id string again and again (session-id-reuse), each with a short life
  let t = T0; let n = 0; const pool = parseInt(A['id-pool'] || '1');
  for (;;) {
    const sid = 'S-REUSED-' + R.int(1, pool); const node = R.pick(G.serverNodes); n++;
    yield { t, ts: t, node, rec: { kind: 'session.created', session: sid, incarnation: 'i-' + n, principal: 'user:u' + R.int(1, 50) } };
    const st = 'g-' + n;
    const ne = A['reuse-events'] != null ? parseInt(A['reuse-events']) : 3;
    if (A['reuse-streams'] !== 'false') {
      t += 5; yield { t, ts: t, node, rec: { kind: 'stream.opened', session: sid, stream: st, via: 'get' } };
      for (let i = 0; i < ne; i++) { t += R.exp(50); yield { t, ts: t, node, rec: { kind: 'event.sent', session: sid, stream: st, event_id: A['uniq-ids'] === 'true' ? n * 10 + i : i + 1, rpc_kind: 'notification', method: 'notifications/message' } }; }
      t += R.exp(50); yield { t, ts: t, node, rec: { kind: 'stream.closed', session: sid, stream: st, reason: 'client' } };
    } else { for (let i = 0; i < 5; i++) { t += R.exp(50); yield { t, ts: t, node, rec: { kind: 'call', session: sid, rpc_id: i + 1, method: 'tools/list', status: 200 } }; } }
    if (A['reuse-end'] !== 'false') { t += R.exp(50); yield { t, ts: t, node, rec: { kind: 'session.terminated', session: sid, reason: 'client_delete' } }; }
    else t += R.exp(50);
  }
}

// ---------------------------------------------------------------- main loop
setupNodes();
G.actorsToAdd = [];
G.deferred = [];
const actors = new Heap((a, b) => a.cur.t < b.cur.t || (a.cur.t === b.cur.t && a.id < b.id));
let actorId = 0;
function addActor(gen) { const r = gen.next(); if (!r.done) actors.push({ gen, cur: r.value, id: actorId++, lastKey: -Infinity }); }
if (SHAPE === 'soak') addActor(soakShape()); else if (SHAPE === 'hammer') addActor(hammerShape()); else if (SHAPE === 'dupcalls') addActor(dupcallsShape()); else if (SHAPE === 'reuse') addActor(reuseShape()); else addActor(spawner());
for (const g of G.actorsToAdd.splice(0)) addActor(g);

const spawnStopAt = Math.floor(N * 0.9);
let guard = 0;
while (actors.size && written < N) {
  const a = actors.pop();
  const it = a.cur;
  if (!it.spawn) {
    let key = it.lateKey != null ? it.lateKey : it.t;
    if (F.jitter && !it.rec?.kind?.startsWith?.('http')) key = it.t + R.int(0, 6);
    key = Math.max(key, a.lastKey); // one writer's lines keep their order
    if (!(it.lateKey != null)) a.lastKey = key;
    if (it.rec && G.nodes[it.node].seq != null && it.rec.kind !== 'http') it.rec.seq = ++G.nodes[it.node].seq;
    enqueue(it, key);
  }
  for (const d of G.deferred.splice(0)) enqueue(d, d.t);
  const r = a.gen.next();
  if (!r.done) { a.cur = r.value; actors.push(a); }
  for (const g of G.actorsToAdd.splice(0)) addActor(g);
  if (written + outQ.size >= spawnStopAt && G.spawning) { G.spawning = false; G.stopAll = true; }
  if (actors.size) drainOut(actors.top().cur.t - 20);
  if (++guard % 100000 === 0 && STATS) process.stderr.write(`.. ${written} lines, ${actors.size} actors\n`);
}
drainOut(Infinity);
flushStdout(true);
if (FAULT_LOG) writeFileSync(FAULT_LOG, faultLog.join(''));
if (STATS) process.stderr.write(JSON.stringify({ shape: SHAPE, features: Object.keys(F).filter((k) => F[k]), written, ...G.stats }) + '\n');
