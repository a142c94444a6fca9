import type { Json } from '../fields.js';
import {
  collectHeaders,
  httpRecord,
  isMcpTraffic,
  KeyIndex,
  knownHeaderAfter,
  normalizeKey,
  type AccessLine,
  type HeaderRoute,
} from './common.js';
import type { InputFormat } from './types.js';

// Envoy JSON access logs (`log_format.json_format`, see README.md). The key
// names are the operator's choice; the defaults people copy from Envoy's and
// Istio's docs are recognised, in any case and with `_` or `-`.

const K = {
  time: ['start-time', 'timestamp', '@timestamp', 'time', 'ts'],
  method: ['method', 'request-method', 'req-method'],
  path: ['path', 'x-envoy-original-path', 'original-path', 'request-path', 'url-path'],
  status: ['response-code', 'status', 'status-code'],
  // %DURATION% is milliseconds already.
  durationMs: ['duration', 'duration-ms'],
  bytes: ['bytes-sent', 'bytes'],
  conn: ['connection-id', 'downstream-connection-id', 'conn'],
  req: ['x-request-id', 'request-id', 'req'],
  principal: ['principal', 'token-fingerprint', 'token-fp', 'jwt-sub', 'jwt-subject', 'subject', 'client-id', 'user'],
  // The upstream that answered is the server instance the session rules compare.
  node: ['node', 'upstream-host', 'hostname'],
  upstream: ['upstream-host'],
  rpcKind: ['rpc-kind'],
  rpcId: ['rpc-id', 'jsonrpc-id'],
  rpcMethod: ['rpc-method', 'jsonrpc-method', 'mcp-method'],
} as const;

function routeHeader(key: string): HeaderRoute | undefined {
  const resp = knownHeaderAfter(key, ['resp-', 'response-', 'res-', 'upstream-']);
  if (resp !== undefined) return { side: 'resp', name: resp, rank: 0 };
  const req = knownHeaderAfter(key, ['req-', 'request-', 'downstream-']);
  if (req !== undefined) return { side: 'req', name: req, rank: 0 };
  // A bare `content_type` is almost always %RESP(CONTENT-TYPE)%: the request's is not worth logging.
  if (key === 'content-type') return { side: 'resp', name: key, rank: 1 };
  if (key === 'mcp-session-id' || key === 'last-event-id' || key === 'accept' || key === 'mcp-protocol-version') {
    return { side: 'req', name: key, rank: 1 };
  }
  return undefined;
}

function accessLine(obj: Json): AccessLine {
  const k = new KeyIndex(obj);
  const headers = collectHeaders(k, routeHeader);
  const rpcKind = k.text(K.rpcKind);
  const rpcId = k.text(K.rpcId);
  const rpcMethod = k.text(K.rpcMethod);
  return {
    ts: k.get(K.time),
    method: k.text(K.method),
    path: k.text(K.path)?.split('?')[0],
    status: k.number(K.status),
    reqHeaders: headers.req,
    respHeaders: headers.resp,
    ...((rpcKind ?? rpcId ?? rpcMethod) !== undefined && { rpc: { rpc_kind: rpcKind, rpc_id: rpcId, rpc_method: rpcMethod } }),
    durationMs: k.number(K.durationMs),
    bytes: k.number(K.bytes),
    conn: k.text(K.conn),
    req: k.text(K.req),
    principal: k.text(K.principal),
    node: k.text(K.node),
    upstream: k.text(K.upstream),
  };
}

export const envoy: InputFormat = {
  name: 'envoy',
  detect(obj) {
    const k = new KeyIndex(obj);
    // `response_code` is Envoy's name (nginx says `status`); present even when it is 0.
    return Object.keys(obj).some((key) => normalizeKey(key) === 'response-code') && k.has(['method', 'start-time']);
  },
  toSpec(obj) {
    const line = accessLine(obj);
    // Response code 0: the downstream went away before any response was sent, so nothing was decided.
    if (line.status === 0) return [];
    return isMcpTraffic(line) ? [httpRecord(line)] : [];
  },
};
