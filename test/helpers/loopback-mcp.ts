import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// The HTTP plumbing every test MCP server shares (the e2e SDK server, the conformance hosts):
// node:http on 127.0.0.1 only, JSON-RPC error answers, and the live GET streams a test cuts
// as a network failure would.

export type Route = (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => Promise<void>;

export function sendJsonError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** The GET streams open per session, so that a test can cut the TCP connection under them. */
export class LiveGets {
  private readonly live = new Set<{ session: string; res: ServerResponse }>();

  /** Tracks `res` while it is open when the request is a session's GET. */
  track(req: IncomingMessage, session: string, res: ServerResponse): void {
    if (req.method !== 'GET') return;
    const entry = { session, res };
    this.live.add(entry);
    res.once('close', () => this.live.delete(entry));
  }

  /** Destroys the sockets under the session's live GET streams; how many. */
  cut(session: string): number {
    let cut = 0;
    for (const entry of [...this.live]) {
      if (entry.session !== session) continue;
      entry.res.socket?.destroy();
      cut += 1;
    }
    return cut;
  }
}

export interface LoopbackHttp {
  port: number;
  url: URL;
  /** Drops every connection and stops listening. */
  close(): Promise<void>;
}

/** Serves `handle` on 127.0.0.1 (port 0: any free one); an error it throws is a 500 where nothing was sent yet. */
export async function listenOnLoopback(handle: Route, port = 0): Promise<LoopbackHttp> {
  const http: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJsonError(res, 500, -32603, String(err));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (http.address() as AddressInfo).port;
  return {
    port: bound,
    url: new URL(`http://127.0.0.1:${bound}/mcp`),
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
