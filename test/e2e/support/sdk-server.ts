import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport, type EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { instrumentEventStore, instrumentHandler, instrumentRequests, type InstrumentRequestsOptions, type Recorder } from '../../../src/instrument/index.js';
import { listenOnLoopback, LiveGets, sendJsonError, type Route } from '../../helpers/loopback-mcp.js';
import { sleep } from './wait.js';

// A real MCP server as its authors write one: McpServer per session,
// StreamableHTTPServerTransport in stateful mode, a session → transport map,
// node:http on 127.0.0.1, instrumented with resumescope/instrument.

export interface SdkServerOptions {
  /** Without one, the same server runs uninstrumented (to compare behaviour). */
  recorder?: Recorder;
  /**
   * Called once per new session; return one shared store to model a server-wide store. `null`: the
   * transports have none, the SDK's default.
   */
  eventStore: (() => EventStore) | null;
  /**
   * What a request presenting a session id the server does not hold gets: 404 (the default), or,
   * seed 004's silent fork, a session minted for it under that same id or a new one, as though the
   * request were an initialize.
   */
  unknownSession?: 'not-found' | 'remint-same-id' | 'remint-new-id';
  /** Tells the instrumentation that the nodes share a session store (`InstrumentRequestsOptions`). */
  sharedSessionStore?: boolean;
  /** Listen on this port (a restart reuses the old one); default any free port. */
  port?: number;
  /**
   * Express style: a body parser runs first and sets `req.body`, the
   * instrumentation is (req, res, next) middleware, and the handler passes
   * `req.body` to the SDK as its parsed body.
   */
  bodyParsedFirst?: boolean;
}

export interface SessionEntry {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
}

export interface RunningSdkServer {
  url: URL;
  port: number;
  sessions: Map<string, SessionEntry>;
  /** Cuts the TCP connection under a session's live GET streams, as a network failure would. */
  cutGetStreams(session: string): number;
  close(): Promise<void>;
}

export async function startSdkServer(opts: SdkServerOptions): Promise<RunningSdkServer> {
  const sessions = new Map<string, SessionEntry>();
  const liveGets = new LiveGets();

  const route = async (req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> => {
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const entry = sessions.get(sessionId);
      if (entry === undefined && req.method === 'POST' && opts.unknownSession !== undefined && opts.unknownSession !== 'not-found') {
        const id = opts.unknownSession === 'remint-same-id' ? sessionId : randomUUID();
        const minted = newSession(opts.eventStore?.(), opts.recorder, sessions, () => id);
        await minted.server.connect(minted.transport);
        return minted.transport.handleRequest(req, res, REMINTING_INITIALIZE);
      }
      // A server that does not know the session (it restarted, say) says so.
      if (entry === undefined) return sendJsonError(res, 404, -32001, 'Session not found');
      liveGets.track(req, sessionId, res);
      return entry.transport.handleRequest(req, res, req.body);
    }
    if (req.method !== 'POST') return sendJsonError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    const entry = newSession(opts.eventStore?.(), opts.recorder, sessions);
    await entry.server.connect(entry.transport);
    return entry.transport.handleRequest(req, res, req.body);
  };
  const principalOf = (req: IncomingMessage): string | undefined =>
    typeof req.headers['x-principal'] === 'string' ? req.headers['x-principal'] : undefined;
  const handle =
    opts.recorder === undefined
      ? route
      : instrumented(opts.recorder, route, { principalOf, sharedSessionStore: opts.sharedSessionStore === true }, opts.bodyParsedFirst === true);

  const http = await listenOnLoopback(handle, opts.port ?? 0);

  return {
    url: http.url,
    port: http.port,
    sessions,
    cutGetStreams: (session) => liveGets.cut(session),
    async close() {
      await Promise.all([...sessions.values()].map((s) => s.server.close().catch(() => {})));
      sessions.clear();
      await http.close();
    },
  };
}

function instrumented(recorder: Recorder, route: Route, opts: InstrumentRequestsOptions, bodyParsedFirst: boolean): Route {
  if (!bodyParsedFirst) return instrumentHandler(recorder, route, opts);
  const middleware = instrumentRequests(recorder, opts);
  return async (req, res) => {
    if (req.method === 'POST') req.body = await parseJsonBody(req);
    await new Promise<void>((resolve, reject) => {
      middleware(req, res, (err) => (err === undefined ? route(req, res).then(resolve, reject) : reject(err)));
    });
  };
}

/** What express.json() does, without express. */
async function parseJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** The initialize a re-minting server answers in place of the request it was sent. */
const REMINTING_INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'remint', version: '1' } },
};

function newSession(
  store: EventStore | undefined,
  recorder: Recorder | undefined,
  sessions: Map<string, SessionEntry>,
  sessionIdGenerator: () => string = () => randomUUID(),
): SessionEntry {
  const server = new McpServer({ name: 'resumescope-e2e', version: '1.0.0' }, { capabilities: { logging: {} } });
  const entry: SessionEntry = {
    server,
    transport: new StreamableHTTPServerTransport({
      sessionIdGenerator,
      ...(store !== undefined && { eventStore: recorder === undefined ? store : instrumentEventStore(store, recorder) }),
      onsessioninitialized: (id) => void sessions.set(id, entry),
      onsessionclosed: (id) => void sessions.delete(id),
    }),
  };
  registerTools(server);
  return entry;
}

function registerTools(server: McpServer): void {
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));

  // Streams progress on its own POST response before answering.
  server.registerTool('count', { inputSchema: { to: z.number().int().min(1).max(20) } }, async ({ to }, extra) => {
    for (let i = 1; i <= to; i++) {
      // Apart in time: the SDK's example store orders ids by their millisecond.
      await sleep(3);
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: `count ${i}` } });
    }
    return { content: [{ type: 'text', text: `counted to ${to}` }] };
  });

  // Asks the client for a sampling on the standalone GET stream and answers
  // the call at once, leaving the sampling request pending.
  server.registerTool('ask', { inputSchema: { timeoutMs: z.number().int().min(1) } }, async ({ timeoutMs }) => {
    server.server
      .createMessage(
        { messages: [{ role: 'user', content: { type: 'text', text: 'pick a colour' } }], maxTokens: 10 },
        { timeout: timeoutMs },
      )
      .catch(() => {});
    return { content: [{ type: 'text', text: 'asked' }] };
  });
}

