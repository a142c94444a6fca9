import type { IncomingMessage, ServerResponse } from 'node:http';
import { instrumentHandler, type Recorder } from '../../../src/instrument/index.js';
import { listenOnLoopback, LiveGets, sendJsonError } from '../../helpers/loopback-mcp.js';

// The HTTP side both SDK servers share: node:http on 127.0.0.1, one
// transport per session, instrumented with resumescope/instrument. Each SDK
// supplies how a session is made (support/server-v1.ts, support/server-v2.ts).

export interface McpSession {
  handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void>;
  readonly sessionId: string | undefined;
  /** A notifications/message on the standalone GET stream, sent from outside any request. */
  notify(text: string): Promise<void>;
  close(): Promise<void>;
}

/** Wraps a tool handler so that closing the server waits for it. */
export type TrackCall = <T>(call: Promise<T>) => Promise<T>;

export interface SessionFactory {
  /**
   * A new, unconnected-to-any-session transport and server; `onEnd` when the SDK ends the session.
   * Tool handlers go through `track`, so that close() lets a call finish first.
   */
  (port: number, onInitialized: (id: string, session: McpSession) => void, onEnd: (id: string) => void, track: TrackCall): Promise<McpSession>;
}

/** How long close() waits for tool calls still running (a sampling call whose client left never ends). */
const DRAIN_MS = 2_000;

/**
 * The tool calls still running. A tool that closes its stream (test_reconnection) answers after the
 * client may have gone and the suite's CLI exited: closing the sessions then would drop the answer
 * the log is meant to show, by a margin of tens of milliseconds on a busy machine.
 */
class CallsInFlight {
  readonly #running = new Set<Promise<unknown>>();

  readonly track: TrackCall = (call) => {
    const settled = call.then(
      () => {},
      () => {},
    );
    this.#running.add(settled);
    void settled.then(() => this.#running.delete(settled));
    return call;
  };

  /** Resolves once every call has settled and the SDK has sent what they returned, or after `ms`. */
  async drain(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([Promise.all(this.#running), bound]);
    clearTimeout(timer);
    // The SDK sends a result on the microtasks after the handler settles; one macrotask lets them run.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export interface RunningServer {
  url: URL;
  sessions: Map<string, McpSession>;
  /** Cuts the TCP connection under a session's live GET streams, as a network failure would. */
  cutGetStreams(session: string): number;
  close(): Promise<void>;
}

export async function hostMcp(recorder: Recorder, newSession: SessionFactory, guard?: (req: IncomingMessage, res: ServerResponse) => boolean): Promise<RunningServer> {
  const sessions = new Map<string, McpSession>();
  const unbound = new Set<McpSession>();
  const liveGets = new LiveGets();
  const calls = new CallsInFlight();
  let port = 0;

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (guard !== undefined && !guard(req, res)) return;
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (session === undefined) return sendJsonError(res, 404, -32001, 'Session not found');
      liveGets.track(req, sessionId, res);
      return session.handleRequest(req, res);
    }
    if (req.method !== 'POST') return sendJsonError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    const session = await newSession(
      port,
      (id, s) => void sessions.set(id, s),
      (id) => void sessions.delete(id),
      calls.track,
    );
    unbound.add(session);
    try {
      await session.handleRequest(req, res);
    } finally {
      unbound.delete(session);
      // The SDK answered without minting a session (a 403, a 400): nothing will use this transport again.
      if (session.sessionId === undefined) await session.close().catch(() => {});
    }
  };
  const handle = instrumentHandler(recorder, route);
  const http = await listenOnLoopback(handle);
  port = http.port;
  return {
    url: http.url,
    sessions,
    cutGetStreams: (session) => liveGets.cut(session),
    async close() {
      await calls.drain(DRAIN_MS);
      await Promise.all([...sessions.values(), ...unbound].map((s) => s.close().catch(() => {})));
      sessions.clear();
      await http.close();
    },
  };
}

/** The Host values a localhost server accepts (DNS-rebinding protection), for the SDK's exact-match list. */
export function localHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, '127.0.0.1', 'localhost', '[::1]'];
}
