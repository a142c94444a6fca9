import { createHash } from 'node:crypto';
import { canonicalJson } from '../model/canonical-json.js';
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

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
