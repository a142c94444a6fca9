import { createHash } from 'node:crypto';
import type { RpcKind } from './records.js';

// What the log needs from one JSON-RPC message, read defensively: the
// instrumentation sees whatever a client or the application sent.

export interface RpcFacts {
  kind?: RpcKind;
  id?: string | number;
  method?: string;
  /** `params.name` of a `tools/call`. */
  tool?: string;
  /** sha256 of the canonical JSON of a `tools/call`'s `params.arguments`. */
  argsHash?: string;
  /** For `notifications/cancelled`: the request it cancels, and why. */
  cancels?: { requestId: string | number; reason?: string };
}

export function rpcFacts(message: unknown): RpcFacts {
  if (!isObject(message)) return {};
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : undefined;
  const method = typeof message.method === 'string' ? message.method : undefined;
  if (method !== undefined && id !== undefined) return { kind: 'request', id, method, ...toolFacts(method, message.params) };
  if (method !== undefined) return { kind: 'notification', method, ...cancelFacts(method, message.params) };
  if (id !== undefined && ('result' in message || 'error' in message)) return { kind: 'response', id };
  return {};
}

/** An `initialize` request in a POST body: its id, and the `protocolVersion` it asks for. */
export interface InitializeRequest {
  id: string | number;
  protocolVersion?: string;
}

export function initializeRequest(body: unknown): InitializeRequest | undefined {
  for (const m of rpcMessages(body)) {
    if (!isObject(m) || m.method !== 'initialize' || (typeof m.id !== 'string' && typeof m.id !== 'number')) continue;
    const asked = isObject(m.params) && typeof m.params.protocolVersion === 'string' ? m.params.protocolVersion : undefined;
    return { id: m.id, ...(asked !== undefined && { protocolVersion: asked }) };
  }
  return undefined;
}

/** The `protocolVersion` the server answered in `message`, where it is the result of the initialize request `id`. */
export function negotiatedProtocolVersion(message: unknown, id: string | number): string | undefined {
  if (!isObject(message) || message.id !== id || !isObject(message.result)) return undefined;
  return typeof message.result.protocolVersion === 'string' ? message.result.protocolVersion : undefined;
}

/** The SDK's priming event: an id with empty data, stored as an empty message. */
export function isPrimingMessage(message: unknown): boolean {
  return isObject(message) && Object.keys(message).length === 0;
}

/** A POST body holds one message or a batch. */
export function rpcMessages(body: unknown): unknown[] {
  return Array.isArray(body) ? body : body === undefined ? [] : [body];
}

function toolFacts(method: string, params: unknown): Pick<RpcFacts, 'tool' | 'argsHash'> {
  if (method !== 'tools/call' || !isObject(params) || typeof params.name !== 'string') return {};
  return { tool: params.name, argsHash: sha256Hex(canonicalJson(params.arguments ?? {})) };
}

function cancelFacts(method: string, params: unknown): Pick<RpcFacts, 'cancels'> {
  if (method !== 'notifications/cancelled' || !isObject(params)) return {};
  const requestId = params.requestId;
  if (typeof requestId !== 'string' && typeof requestId !== 'number') return {};
  return { cancels: { requestId, ...(typeof params.reason === 'string' && { reason: params.reason }) } };
}

/**
 * JSON with object keys sorted at every depth, so equal arguments hash equally. A loop over a stack of
 * what is left to write, not a call per level: a request's arguments are the client's, and a 40 KB body
 * nested 20,000 deep (which JSON.parse takes) overflowed the call stack and took the server down.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const todo: unknown[] = [value];
  while (todo.length > 0) {
    const item = todo.pop();
    if (item instanceof Written) {
      out.push(item.text);
    } else if (Array.isArray(item)) {
      todo.push(CLOSE_ARRAY);
      for (let i = item.length - 1; i >= 0; i--) todo.push(item[i], ...(i > 0 ? [COMMA] : []));
      todo.push(OPEN_ARRAY);
    } else if (isObject(item)) {
      const keys = Object.keys(item)
        .filter((k) => item[k] !== undefined)
        .sort();
      todo.push(CLOSE_OBJECT);
      for (let i = keys.length - 1; i >= 0; i--) todo.push(item[keys[i]!], new Written(`${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`));
      todo.push(OPEN_OBJECT);
    } else {
      out.push(JSON.stringify(item) ?? 'null');
    }
  }
  return out.join('');
}

/** Text canonicalJson writes as it is (a bracket, a comma, a key), told apart from a value still to write. */
class Written {
  constructor(readonly text: string) {}
}
const OPEN_ARRAY = new Written('[');
const CLOSE_ARRAY = new Written(']');
const OPEN_OBJECT = new Written('{');
const CLOSE_OBJECT = new Written('}');
const COMMA = new Written(',');

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
