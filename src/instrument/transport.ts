import { currentRequest } from './request-context.js';
import type { Recorder } from './recorder.js';
import type { TransportLike } from './sdk-types.js';
import { trackerOf } from './tracker.js';

/**
 * Logs a session's end when the SDK ends it, not only on DELETE: the
 * transport's close (`server.close()`, `transport.close()`, the close that
 * follows a DELETE) becomes `session.terminated`, reason `server_close`,
 * once per session. Chains the transport's `onclose`, now and whenever it
 * is set again (call it before or after `server.connect(transport)`: the
 * SDK's own handler keeps running first), and returns the transport.
 */
export function instrumentTransport<T extends TransportLike>(transport: T, recorder: Recorder): T {
  type Handler = (() => void) | undefined;
  // The SDK's transports keep onclose behind an accessor (1.x's Node transport forwards it to
  // the web-standard one, which is what calls it): set and read through that accessor.
  const original = lookupProperty(transport, 'onclose');
  let own: Handler;
  const readUnderlying = (): Handler => (original?.get ? (original.get.call(transport) as Handler) : own);
  const writeUnderlying = (h: Handler): void => {
    if (original?.set) original.set.call(transport, h);
    else own = h;
  };
  // Every handler set (Protocol.connect sets its own, calling the one it read) gets our log after it.
  const withLog = (handler: Handler): (() => void) => () => {
    try {
      handler?.();
    } finally {
      logEnd(transport, recorder);
    }
  };
  const initial = readUnderlying();
  Object.defineProperty(transport, 'onclose', {
    configurable: true,
    enumerable: true,
    get: readUnderlying,
    set: (handler: Handler) => writeUnderlying(withLog(handler)),
  });
  writeUnderlying(withLog(initial));
  return transport;
}

function lookupProperty(target: object, name: string): PropertyDescriptor | undefined {
  for (let o: object | null = target; o !== null; o = Object.getPrototypeOf(o) as object | null) {
    const desc = Object.getOwnPropertyDescriptor(o, name);
    if (desc !== undefined) return desc.get !== undefined || desc.set !== undefined ? desc : undefined;
  }
  return undefined;
}

function logEnd(transport: TransportLike, recorder: Recorder): void {
  const session = transport.sessionId;
  if (session === undefined) return;
  // A DELETE of this session logs its own end (client_delete) when its answer goes out.
  const ctx = currentRequest(recorder);
  if (ctx?.httpMethod === 'DELETE' && ctx.presentedSession === session) return;
  if (!trackerOf(recorder).endSession(session)) return;
  recorder.record({ kind: 'session.terminated', session, reason: 'server_close' });
}
