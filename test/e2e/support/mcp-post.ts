/** A JSON-RPC POST to an MCP endpoint as a Streamable HTTP client sends it (either answer accepted), bounded at 3 s. */
export const postMcp = (url: URL, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    signal: AbortSignal.timeout(3000),
  }).then(async (res) => ({ status: res.status, session: res.headers.get('mcp-session-id'), text: await res.text() }));
