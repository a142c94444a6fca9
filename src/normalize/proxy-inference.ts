import { isStatelessEra, type NormalizedRecord } from '../model/record.js';

// What a reverse proxy's access record says about resumption. A proxy sees
// headers and statuses, not server state: inferred records carry only what was
// seen (counters stay unknown), and are marked origin 'proxy'.

const ok = (status: number) => status >= 200 && status < 300;

/**
 * `upstream`: the server node that answered, where the line names it. The line's own `node` is the proxy host
 * that wrote it, no MCP server: what is inferred from the line names no node without an upstream.
 */
export function inferFromHttp(h: NormalizedRecord, upstream?: string): NormalizedRecord[] {
  const status = h.status!;
  const method = (h.httpMethod ?? '').toUpperCase();
  const reqH = h.reqHeaders ?? {};
  const respH = h.respHeaders ?? {};
  const session = reqH['mcp-session-id'] ?? null;
  const lastEventId = reqH['last-event-id'] ?? null;
  const minted = respH['mcp-session-id'];
  const isSse = (respH['content-type'] ?? '').includes('text/event-stream');
  const base = {
    tsMs: h.tsMs,
    origin: 'proxy' as const,
    ...(upstream !== undefined && { node: upstream }),
    ...(h.conn !== undefined && { conn: h.conn }),
    ...(h.principal !== undefined && { principal: h.principal }),
    ...(h.req !== undefined && { req: h.req }),
    ...(h.protocolVersion !== undefined && { protocolVersion: h.protocolVersion }),
    // How long the request lasted: a server record of the same request falls within it.
    ...(h.durationMs !== undefined && { durationMs: h.durationMs }),
  };
  const out: NormalizedRecord[] = [];
  const resetSignalled = h.resetSignalled;

  const mintedNew = minted !== undefined && minted !== session && ok(status);
  if (mintedNew) {
    out.push({ ...base, kind: 'session.created', session: minted });
    out.push({
      ...base,
      kind: 'upgrade',
      session,
      lastEventId,
      decision: 'fresh',
      status,
      // The method the proxy saw: the engine replay judges a stateless-era request by it (a GET is a 405).
      httpMethod: method,
      // The JSON-RPC method, where the line names it: an initialize's mint logs the revision asked for, which says
      // nothing of the session it minted (store/views.ts, initialize_mints).
      ...(h.method !== undefined && { method: h.method }),
      newSession: minted,
      ...(resetSignalled !== undefined && { resetSignalled }),
    });
    return out;
  }
  // A POST answered with plain JSON opened no stream: its Last-Event-ID resumed nothing. Nor did one at
  // 2026-07-28, which has no resumption and no sessions (the server ignores both headers): a proxy cannot tell
  // its response stream from a replay, so it is the call it carries (rules.md, replay-in-stateless-era). A
  // stale Mcp-Session-Id changes nothing unless the response echoed it (the server did take it for a session).
  const plainPost = method === 'POST' && ok(status) && !isSse;
  const headerIgnored = method === 'POST' && isStatelessEra(h.protocolVersion) && (session === null || minted === undefined);
  if (method === 'GET' || (lastEventId !== null && !plainPost && !headerIgnored)) {
    const accepted = ok(status) && (isSse || method === 'GET');
    const decision = !accepted ? 'reject' : lastEventId !== null ? 'resume' : 'attach';
    out.push({
      ...base,
      kind: 'upgrade',
      session,
      lastEventId,
      decision,
      status,
      httpMethod: method,
      ...(resetSignalled !== undefined && { resetSignalled }),
    });
    return out;
  }
  if (method === 'POST' && session !== null && h.rpcKind === 'response' && h.rpcId !== undefined) {
    out.push({ ...base, kind: 'request.answered', session, requestId: h.rpcId, status });
  } else if (method === 'POST' && (session !== null || isStatelessEra(h.protocolVersion)) && h.rpcKind === 'request' && h.rpcId !== undefined && h.method !== undefined) {
    // An ignored stale session id is no session of the call's (the http record itself keeps the header).
    out.push({ ...base, kind: 'call', session: headerIgnored ? null : session, rpcId: h.rpcId, method: h.method, status });
  }
  return out;
}
