import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shortSessionIds } from '../../src/render/common.js';

// Short session ids, as git shortens hashes: at least 8 characters, and as many more as it takes
// for no other listed id to share the prefix. The definition, as one comparison of every pair:
function byEveryPair(ids: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const id of ids) {
    let n = Math.min(8, id.length);
    while (n < id.length && ids.some((o) => o !== id && o.startsWith(id.slice(0, n)))) n += 1;
    out.set(id, n >= id.length - 1 ? id : `${id.slice(0, n)}…`);
  }
  return out;
}

describe('shortSessionIds', () => {
  it('names ids apart by their shortest unshared prefix of 8 or more', () => {
    const short = shortSessionIds(['mcp-0b7fffdb9aeb105c', 'mcp-0b7fffdb11111111', 'mcp-d858f14086686033', 'S1', null]);
    expect(short.get('mcp-0b7fffdb9aeb105c')).toBe('mcp-0b7fffdb9…');
    expect(short.get('mcp-0b7fffdb11111111')).toBe('mcp-0b7fffdb1…');
    expect(short.get('mcp-d858f14086686033')).toBe('mcp-d858…');
    expect(short.get('S1')).toBe('S1');
    expect(short.get(null)).toBe('(no session)');
  });

  it('agrees with a comparison of every pair, on ids that are prefixes of each other', () => {
    const id = fc.stringMatching(/^[ab]{0,14}$/);
    fc.assert(
      fc.property(fc.uniqueArray(id, { maxLength: 30 }), (ids) => {
        const short = shortSessionIds(ids);
        for (const [k, v] of byEveryPair(ids)) expect(short.get(k)).toBe(v);
      }),
      { numRuns: 500 },
    );
  });
});
