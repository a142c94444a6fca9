import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../src/store/heap.js';

// derive collects its garbage once it has folded a session of hundreds of thousands of records, so that
// detect does not build the engine's state on top of it (store/heap.ts).

describe('collectGarbage', () => {
  it('frees what nothing refers to any more, at once', () => {
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    let garbage: string[] | undefined = Array.from({ length: 400_000 }, (_, i) => `record ${i} `.repeat(4));
    expect(process.memoryUsage().heapUsed - before).toBeGreaterThan(30e6);
    garbage = undefined;
    collectGarbage();
    expect(garbage).toBeUndefined();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(10e6);
  });

});
