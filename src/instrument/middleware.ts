import type { IncomingMessage, ServerResponse } from 'node:http';
import { noteInitializeResult, requestContext, type RequestContext } from './request-context.js';
import { captureBodyStart, isEventStream, loggableRequestHeaders, readJsonBody, requestHeader, requestPath, responseHeader, watchJsonRpcBody, watchSseRetry } from './node-http.js';
import { initializeRequest, rpcFacts, rpcMessages } from './jsonrpc.js';
import type { Recorder } from './recorder.js';
import { onResponseClose, onResponseHead, type Exchange } from './response-records.js';
import { trackerOf } from './tracker.js';

export interface InstrumentRequestsOptions {
  /** Who the client is (an authenticated subject, a token fingerprint: never the token). */
  principalOf?: (req: IncomingMessage) => string | undefined;
  /** The largest POST body read to see its JSON-RPC messages; default 4 MiB, the SDK's own limit. */
  maxBodyBytes?: number;
  /**
   * The server's nodes share one session store, so this node serves sessions another node minted: a
   * session id it never saw is taken as live, and only an id it saw end, or a new id in the answer, is a
   * mint. Default false: an answered id this node never minted is a mint (a silent fork's).
   */
  sharedSessionStore?: boolean;
}

export type NextFunction = (err?: unknown) => void;

const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
const ERROR_BODY_BYTES = 2048;

/**
 * Connect/express-style middleware that logs what each request to the MCP
 * endpoint meant (session created or ended, stream opened or closed, the
 * reconnect decision, calls and answers) and lets the handler after it run
 * in a context the instrumented event store can see. It changes nothing the
 * server receives or sends.
 */
export function instrumentRequests(
  recorder: Recorder,
  opts: InstrumentRequestsOptions = {},
): (req: IncomingMessage, res: ServerResponse, next: NextFunction) => void {
  return (req, res, next) => {
    observe(recorder, req, res, opts).then(
      (ctx) => requestContext.run(ctx, () => next()),
      (err: unknown) => next(err),
    );
  };
}

/** The same, around a plain handler such as `(req, res) => transport.handleRequest(req, res)`. */
export function instrumentHandler(
  recorder: Recorder,
  handler: (req: IncomingMessage, res: ServerResponse) => unknown,
  opts: InstrumentRequestsOptions = {},
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const ctx = await observe(recorder, req, res, opts);
    await requestContext.run(ctx, () => handler(req, res));
  };
}

async function observe(recorder: Recorder, req: IncomingMessage, res: ServerResponse, opts: InstrumentRequestsOptions): Promise<RequestContext> {
  const httpMethod = (req.method ?? 'GET').toUpperCase();
  const body = httpMethod === 'POST' ? await readJsonBody(req, opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES) : undefined;
  const principal = safely(() => opts.principalOf?.(req));
  const initialize = initializeRequest(body);
  const protocolVersion = requestHeader(req, 'mcp-protocol-version') ?? initialize?.protocolVersion;
  const ctx: RequestContext = {
    recorder,
    httpMethod,
    presentedSession: requestHeader(req, 'mcp-session-id'),
    lastEventId: requestHeader(req, 'last-event-id'),
    sharedSessionStore: opts.sharedSessionStore === true,
    conn: trackerOf(recorder).connOf(req.socket),
    ...(principal !== undefined && { principal }),
    ...(protocolVersion !== undefined && { protocolVersion }),
    ...(initialize !== undefined && { initializeId: initialize.id }),
    path: requestPath(req),
    loggableHeaders: loggableRequestHeaders(req),
    requestIds:
      safely(() => new Set(rpcMessages(body).flatMap((m) => {
        const rpc = rpcFacts(m);
        return rpc.kind === 'request' && rpc.id !== undefined ? [rpc.id] : [];
      }))) ?? new Set(),
    answeredIds: new Set(),
    headWritten: false,
    deferred: [],
  };
  const exchange: Exchange = { ctx, res, body };
  // An initialize's result says the revision negotiated (an instrumented event store sees it first, where there is one).
  if (initialize !== undefined) watchJsonRpcBody(res, (message) => noteInitializeResult(ctx, message) || ctx.negotiatedVersion !== undefined);
  hookResponseHead(res, (args) => {
    const status = typeof args[0] === 'number' ? args[0] : res.statusCode;
    if (status >= 400) exchange.errorBody = captureBodyStart(res, ERROR_BODY_BYTES);
    const contentType = responseHeader(res, args.slice(1), 'content-type');
    const eventStream = isEventStream(contentType);
    // The `retry` an SSE body tells the client: a server close after it is a poll.
    if (eventStream) watchSseRetry(res, (ms) => void (ctx.body !== undefined && (ctx.body.retryMs ??= ms)));
    onResponseHead(exchange, {
      status,
      sessionHeader: responseHeader(res, args.slice(1), 'mcp-session-id'),
      eventStream,
      ...(contentType !== undefined && { contentType }),
    });
  });
  res.once('close', () => safely(() => onResponseClose(exchange)));
  return ctx;
}

// Every response head goes through writeHead (Node's implicit headers call it
// too): the one moment where status and headers are known and nothing of the
// body is out yet.
function hookResponseHead(res: ServerResponse, onHead: (args: unknown[]) => void): void {
  const original = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    res.writeHead = original;
    safely(() => onHead(args));
    return (original as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as typeof res.writeHead;
}

// The log must never break the server it observes.
function safely<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch (err) {
    process.emitWarning(`resumescope instrumentation: ${String(err)}`);
    return undefined;
  }
}
