import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';

// Small readers over Node's HTTP objects, none of which changes what the
// server receives or sends.

export function requestHeader(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? null : first;
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
