import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initializeRequest, negotiatedProtocolVersion, rpcFacts } from '../../src/instrument/jsonrpc.js';
import { canonicalJson, sha256Hex } from '../../src/instrument/index.js';

describe('canonicalJson', () => {
  it('is the same for the same arguments whatever their key order, so a retried call hashes alike', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (args) => {
        const reversed = Object.fromEntries(Object.entries(args).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(args));
      }),
    );
  });

  it('keeps the value: it parses back to equal JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('takes arguments nested deeper than the call stack: a hostile body must not take the server down', () => {
    const text = '{"a":['.repeat(20_000) + '1' + ']}'.repeat(20_000);
    expect(canonicalJson(JSON.parse(text))).toBe(text);
  });

  it('tells different arguments apart', () => {
    expect(sha256Hex(canonicalJson({ a: 1, b: [1, 2] }))).not.toBe(sha256Hex(canonicalJson({ a: 1, b: [2, 1] })));
  });
});

describe('rpcFacts', () => {
  it.each([
    [{ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { b: 2, a: 1 } } }, { kind: 'request', id: 3, method: 'tools/call', tool: 'echo', argsHash: sha256Hex('{"a":1,"b":2}') }],
    [{ jsonrpc: '2.0', id: 'r1', method: 'sampling/createMessage', params: {} }, { kind: 'request', id: 'r1', method: 'sampling/createMessage' }],
    [{ jsonrpc: '2.0', id: 0, result: {} }, { kind: 'response', id: 0 }],
    [{ jsonrpc: '2.0', id: 0, error: { code: 1, message: 'no' } }, { kind: 'response', id: 0 }],
    [{ jsonrpc: '2.0', method: 'notifications/message', params: {} }, { kind: 'notification', method: 'notifications/message' }],
    [
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4, reason: 'user' } },
      { kind: 'notification', method: 'notifications/cancelled', cancels: { requestId: 4, reason: 'user' } },
    ],
    [{}, {}],
    ['not an object', {}],
  ])('reads %j', (message, facts) => {
    expect(rpcFacts(message)).toEqual(facts);
  });
});

describe('initialize', () => {
  it('reads the id and the version an initialize asks for, in a batch too, and the version its result answers', () => {
    const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2026-07-28', capabilities: {} } };
    expect(initializeRequest(init)).toEqual({ id: 0, protocolVersion: '2026-07-28' });
    expect(initializeRequest([{ jsonrpc: '2.0', method: 'notifications/initialized' }, init])).toEqual({ id: 0, protocolVersion: '2026-07-28' });
    expect(initializeRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBeUndefined();
    expect(negotiatedProtocolVersion({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25' } }, 0)).toBe('2025-11-25');
    // another request's result, or an error, says nothing of it
    expect(negotiatedProtocolVersion({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } }, 0)).toBeUndefined();
    expect(negotiatedProtocolVersion({ jsonrpc: '2.0', id: 0, error: { code: -32602, message: 'no' } }, 0)).toBeUndefined();
  });
});
