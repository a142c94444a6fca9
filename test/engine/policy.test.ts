import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, resolvePolicy, type Policy } from '../../src/engine/index.js';

describe('policy', () => {
  it('defaults to the logged retention, 5 s fence grace, reject, re-emit, 5 in 10 s, 60 s', () => {
    expect(DEFAULT_POLICY).toEqual({
      retention: 'as-logged',
      fenceGraceMs: 5000,
      unresumable: 'reject',
      pendingOnAttach: 'reemit',
      stormCount: 5,
      stormWindowMs: 10000,
      duplicateCallWindowMs: 60000,
    });
    expect(Object.isFrozen(DEFAULT_POLICY)).toBe(true);
  });

  it('fills what a partial policy leaves out, and ignores undefined fields', () => {
    const policy = resolvePolicy({ unresumable: 'reset', retention: { maxAgeMs: 30_000 }, stormCount: undefined });
    expect(policy).toEqual({ ...DEFAULT_POLICY, unresumable: 'reset', retention: { maxAgeMs: 30_000 } });
    expect(resolvePolicy()).toEqual(DEFAULT_POLICY);
  });

  it.each([
    [{ fenceGraceMs: -1 }, /fenceGraceMs/],
    [{ stormWindowMs: Number.NaN }, /stormWindowMs/],
    [{ stormCount: 0 }, /stormCount/],
    [{ stormCount: 2.5 }, /stormCount/],
    [{ retention: { maxAgeMs: -5 } }, /retention\.maxAgeMs/],
    [{ retention: { maxEvents: 1.5 } }, /retention\.maxEvents/],
    [{ retention: 'forever' }, /retention/],
    [{ unresumable: 'ignore' }, /unresumable/],
    [{ pendingOnAttach: 'drop' }, /pendingOnAttach/],
  ])('rejects %o with a message naming the field', (partial, message) => {
    expect(() => resolvePolicy(partial as Partial<Policy>)).toThrow(message);
  });
});
