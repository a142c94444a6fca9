import type { Json } from '../fields.js';
import { parseTime } from '../time.js';
import {
  collectHeaders,
  httpRecord,
  isMcpTraffic,
  KeyIndex,
  knownHeaderAfter,
  lastOfList,
  MCP_HEADERS,
  rpcFromBody,
  secondsToMs,
  type AccessLine,
  type HeaderRoute,
} from './common.js';
import type { InputFormat } from './types.js';

// nginx JSON access logs (`log_format mcp escape=json '{…}'`, see README.md).
// Keys are looked up normalized (`request_method` = `requestMethod`), and
// nginx's own variable naming is followed for headers: `$http_NAME` is a
// request header, `$sent_http_NAME` / `$upstream_http_NAME` a response header.

const K = {
  msec: ['msec'],
  time: ['time-iso8601', 'timestamp', '@timestamp', 'time', 'ts'],
  timeLocal: ['time-local'],
  method: ['request-method', 'method', 'http-method'],
  // $request_uri is what the client asked for; $uri may have been rewritten.
  path: ['request-uri', 'uri', 'path', 'url'],
  requestLine: ['request'],
  status: ['status', 'http-status', 'status-code', 'response-status'],
  requestTime: ['request-time'],
  durationMs: ['duration-ms'],
  bytes: ['bytes-sent', 'body-bytes-sent', 'bytes'],
  conn: ['connection', 'conn', 'connection-id'],
  req: ['request-id', 'req', 'x-request-id'],
  principal: ['principal', 'token-fingerprint', 'token-fp', 'jwt-sub', 'subject', 'client-id', 'remote-user'],
  // The backend that answered is what the session rules compare; nginx's own host only when that is not logged.
  node: ['node', 'upstream-addr', 'hostname'],
  upstream: ['upstream-addr'],
  body: ['request-body'],
  rpcKind: ['rpc-kind'],
  rpcId: ['rpc-id', 'jsonrpc-id'],
  rpcMethod: ['rpc-method', 'jsonrpc-method', 'mcp-method'],
} as const;

/** Keys only an nginx log_format would write; one of them must be there. */
const NGINX_MARKERS = ['request-method', 'request-uri', 'uri', 'request', 'time-local', 'time-iso8601', 'msec', 'request-time', 'remote-addr', 'body-bytes-sent'];

function routeHeader(key: string): HeaderRoute | undefined {
  if (key.startsWith('sent-http-')) return { side: 'resp', name: key.slice('sent-http-'.length), rank: 0 };
  if (key.startsWith('upstream-http-')) return { side: 'resp', name: key.slice('upstream-http-'.length), rank: 1 };
  if (key.startsWith('http-') && key !== 'http-method' && key !== 'http-status') return { side: 'req', name: key.slice('http-'.length), rank: 0 };
  const resp = knownHeaderAfter(key, ['resp-', 'response-']);
  if (resp !== undefined) return { side: 'resp', name: resp, rank: 2 };
  const req = knownHeaderAfter(key, ['req-', 'request-']);
  if (req !== undefined) return { side: 'req', name: req, rank: 1 };
  // A bare `mcp_session_id` is what the client sent; a bare `content_type` is nginx's $content_type, the request's.
  if (MCP_HEADERS.includes(key)) return { side: 'req', name: key, rank: 2 };
  return undefined;
}

const MONTHS: Record<string, string> = {
  Jan: '01', Feb: '02', Mar: '03', Apr: '04', May: '05', Jun: '06', Jul: '07', Aug: '08', Sep: '09', Oct: '10', Nov: '11', Dec: '12',
};

/** `$time_local`: "09/Nov/2026:10:00:00 +0000" → RFC 3339, or the text unchanged (the normalizer then rejects it). */
function timeLocalToIso(v: string): string {
  const m = /^(\d{2})\/([A-Z][a-z]{2})\/(\d{4}):(\d{2}:\d{2}:\d{2}) ([+-]\d{2})(\d{2})$/.exec(v);
  const month = m ? MONTHS[m[2]!] : undefined;
  return m && month ? `${m[3]}-${month}-${m[1]}T${m[4]}${m[5]}:${m[6]}` : v;
}

function logTime(k: KeyIndex): unknown {
  // $msec has millisecond resolution, $time_iso8601 only seconds: prefer it when both are logged.
  const t = k.get(K.msec) ?? k.get(K.time);
  if (t !== undefined) return t;
  const local = k.text(K.timeLocal);
  return local === undefined ? undefined : timeLocalToIso(local);
}

/**
 * When the request arrived. Every nginx clock variable says when the line was
 * written, at the end of the request: for an SSE stream that is minutes after
 * the reconnect it records, so the request's duration is taken off. A time
 * that does not parse is passed on for the normalizer to reject.
 */
function arrival(k: KeyIndex, durationMs: number | undefined): unknown {
  const raw = logTime(k);
  const ms = parseTime(raw);
  if (ms === undefined) return raw;
  return durationMs === undefined ? ms : ms - durationMs;
}

/** `$request`: "POST /mcp?x=1 HTTP/1.1". */
function requestLine(v: string | undefined): { method?: string; path?: string } {
  const m = v === undefined ? null : /^([A-Z]+) (\S+)/.exec(v);
  return m ? { method: m[1]!, path: m[2]!.split('?')[0]! } : {};
}

function accessLine(obj: Json): AccessLine {
  const k = new KeyIndex(obj);
  const headers = collectHeaders(k, routeHeader);
  const fromLine = requestLine(k.text(K.requestLine));
  const explicitRpc = k.text(K.rpcKind) ?? k.text(K.rpcId) ?? k.text(K.rpcMethod);
  const rpc = explicitRpc !== undefined
    ? { rpc_kind: k.text(K.rpcKind), rpc_id: k.text(K.rpcId), rpc_method: k.text(K.rpcMethod) }
    : rpcFromBody(k.get(K.body));
  const path = k.text(K.path) ?? fromLine.path;
  const durationMs = k.number(K.durationMs) ?? secondsToMs(k.number(K.requestTime));
  return {
    ts: arrival(k, durationMs),
    method: k.text(K.method) ?? fromLine.method,
    path: path?.split('?')[0],
    status: k.number(K.status),
    reqHeaders: headers.req,
    respHeaders: headers.resp,
    rpc,
    durationMs,
    bytes: k.number(K.bytes),
    conn: k.text(K.conn),
    req: k.text(K.req),
    principal: k.text(K.principal),
    node: lastOfList(k.text(K.node)),
    upstream: lastOfList(k.text(K.upstream)),
  };
}

export const nginx: InputFormat = {
  name: 'nginx',
  detect(obj) {
    const k = new KeyIndex(obj);
    return k.has(K.status) && (k.has(K.method) || k.has(K.requestLine)) && k.has(NGINX_MARKERS) && !k.has(['response-code']);
  },
  toSpec(obj) {
    const line = accessLine(obj);
    return isMcpTraffic(line) ? [httpRecord(line)] : [];
  },
};
