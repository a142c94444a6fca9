import { describe, expect, it } from 'vitest';
import { appendAll } from '../../src/model/arrays.js';

describe('appendAll', () => {
  it('appends in order, from any iterable, and returns the target', () => {
    const to = [1];
    expect(appendAll(to, new Set([2, 3]))).toBe(to);
    expect(to).toEqual([1, 2, 3]);
  });

  it('takes more items than a call takes arguments (a bad server makes findings by the hundred thousand)', () => {
    const to: number[] = [];
    appendAll(to, Array.from({ length: 300_000 }, (_, i) => i));
    expect(to.length).toBe(300_000);
    expect(to[299_999]).toBe(299_999);
  });
});
