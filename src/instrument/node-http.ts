import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';

// Small readers over Node's HTTP objects, none of which changes what the
// server receives or sends.

export function requestHeader(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? null : first;
}

/** The request path without its query string, which may carry a token. */
export function requestPath(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.search(/[?#]/);
  return q === -1 ? url : url.slice(0, q);
}

/** The request headers a log may keep: what MCP resumption turns on, never a credential. */
const LOGGABLE_REQUEST_HEADERS = ['mcp-session-id', 'last-event-id', 'mcp-protocol-version', 'accept', 'content-type', 'host', 'origin'];

export function loggableRequestHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of LOGGABLE_REQUEST_HEADERS) {
    const value = requestHeader(req, name);
    if (value !== null) out[name] = value;
  }
  return out;
}

/** A response header as `writeHead(status, [message], headers)` sets it, else as set before. */
export function responseHeader(res: ServerResponse, writeHeadArgs: unknown[], name: string): string | undefined {
  const headers = writeHeadArgs.find((a) => typeof a === 'object' && a !== null) as
    | OutgoingHttpHeaders
    | OutgoingHttpHeader[]
    | undefined;
  const given = headers === undefined ? undefined : findHeader(headers, name);
  const value = given ?? res.getHeader(name);
  if (value === undefined) return undefined;
  return Array.isArray(value) ? String(value[0]) : String(value);
}

function findHeader(headers: OutgoingHttpHeaders | OutgoingHttpHeader[], name: string): OutgoingHttpHeader | undefined {
  if (Array.isArray(headers)) {
    // Either [k, v, k, v] or [[k, v], …].
    for (let i = 0; i < headers.length; i++) {
      const entry = headers[i];
      if (Array.isArray(entry) && String(entry[0]).toLowerCase() === name) return entry[1] as OutgoingHttpHeader;
      if (typeof entry === 'string' && i % 2 === 0 && entry.toLowerCase() === name) return headers[i + 1];
    }
    return undefined;
  }
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

export function isEventStream(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'text/event-stream';
}

interface BodyCarrier {
  body?: unknown;
  rawBody?: unknown;
}

/**
 * The parsed JSON body of a POST, read so that the server still receives it:
 * a body a framework already parsed (`req.body`, e.g. express.json()) is used
 * as is; otherwise it is read once into `req.rawBody`, which the SDK's Node
 * adapter (@hono/node-server) takes as the request body. Bodies without a
 * Content-Length, or above `maxBytes`, are left untouched and unseen.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const carrier = req as IncomingMessage & BodyCarrier;
  if (carrier.body !== undefined) return carrier.body;
  if (!(carrier.rawBody instanceof Buffer)) {
    const length = Number(requestHeader(req, 'content-length') ?? NaN);
    if (!Number.isFinite(length) || length > maxBytes || req.readableEnded || req.readableDidRead) return undefined;
    carrier.rawBody = await readAll(req);
  }
  try {
    return JSON.parse((carrier.rawBody as Buffer).toString('utf8'));
  } catch {
    return undefined;
  }
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = (): void => {
      req.off('data', onData);
      req.off('end', done);
      req.off('error', done);
      req.off('close', done);
      resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer | string): void => {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    };
    req.on('data', onData);
    req.on('end', done);
    req.on('error', done);
    req.on('close', done);
  });
}

/**
 * Calls `onRetry` with the first SSE `retry:` field the server writes (the
 * 2025-11-25 priming event carries it). Stops looking once one was seen, or
 * after the first few KiB: the field comes first if at all.
 */
export function watchSseRetry(res: ServerResponse, onRetry: (ms: number) => void): void {
  const write = res.write;
  let looked = 0;
  let tail = '';
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    if (looked < RETRY_SCAN_BYTES && (typeof chunk === 'string' || chunk instanceof Uint8Array)) {
      const text = tail + (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      looked += text.length - tail.length;
      const m = /(?:^|\n)retry: ?(\d+)\r?\n/.exec(text);
      if (m) {
        looked = RETRY_SCAN_BYTES;
        onRetry(Number(m[1]));
      }
      tail = text.slice(-32);
    }
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
}

const RETRY_SCAN_BYTES = 8192;

/** Keeps the first bytes of what the server writes, to read an error response's message. */
export function captureBodyStart(res: ServerResponse, limit: number): () => string {
  const chunks: Buffer[] = [];
  let kept = 0;
  const keep = (chunk: unknown): void => {
    if (kept >= limit || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk instanceof Uint8Array ? Buffer.from(chunk) : undefined;
    if (buf === undefined) return;
    chunks.push(buf.subarray(0, limit - kept));
    kept += Math.min(buf.length, limit - kept);
  };
  const write = res.write;
  const end = res.end;
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    keep(chunk);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    keep(chunk);
    return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as typeof res.end;
  return () => Buffer.concat(chunks).toString('utf8');
}

/** The `error.message` of a JSON-RPC error body, if that is what it is. */
export function jsonRpcErrorMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    return typeof parsed.error?.message === 'string' ? parsed.error.message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Calls `onMessage` with each JSON-RPC message the server writes in a response body (the data of each SSE
 * event, or a JSON body once it ends: a body that starts with `{` or `[` is JSON), until `onMessage` returns
 * true or `limit` bytes have gone by. Set before the head goes out: Node writes an implicit head from inside
 * `end(body)`. What an `initialize` POST is answered: the revision negotiated is in its result, no header says it.
 */
export function watchJsonRpcBody(res: ServerResponse, onMessage: (message: unknown) => boolean, limit = JSON_RPC_SCAN_BYTES): void {
  let text = '';
  let seen = 0;
  let done = false;
  let json: boolean | undefined;
  const deliver = (body: string): void => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return;
    }
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) if (!done && onMessage(message)) done = true;
  };
  const take = (chunk: unknown, ended: boolean): void => {
    if (done) return;
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk instanceof Uint8Array ? chunk : undefined;
    if (buf !== undefined && seen < limit) {
      text += Buffer.from(buf.subarray(0, limit - seen)).toString('utf8');
      seen += Math.min(buf.length, limit - seen);
    }
    const start = text.trimStart();
    if (json === undefined && start !== '') json = start.startsWith('{') || start.startsWith('[');
    if (json === false) {
      // Complete SSE events only: an event ends at a blank line.
      const blocks = text.split(/\r?\n\r?\n/);
      text = blocks.pop() ?? '';
      for (const block of blocks) {
        const data = block.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(l.startsWith('data: ') ? 6 : 5));
        if (data.length > 0) deliver(data.join('\n'));
      }
    } else if (json === true && ended) {
      deliver(text);
    }
    if (seen >= limit) done = true;
  };
  const write = res.write;
  const end = res.end;
  // What the server writes goes out whatever reading it does.
  const safeTake = (chunk: unknown, ended: boolean): void => {
    try {
      take(chunk, ended);
    } catch (err) {
      done = true;
      process.emitWarning(`resumescope instrumentation: ${String(err)}`);
    }
  };
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    safeTake(chunk, false);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    safeTake(typeof chunk === 'function' ? undefined : chunk, true);
    return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as typeof res.end;
}

const JSON_RPC_SCAN_BYTES = 256 * 1024;
