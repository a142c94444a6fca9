import { describe, expect, it } from 'vitest';
import { writeOut, type Io } from '../../src/cli/io.js';

// A report piped to a slower reader: each piece waits until stdout has taken the one before,
// so that the stream never holds the whole report.

function slowReader(holdsBack: (n: number) => boolean) {
  const written: string[] = [];
  const events: string[] = [];
  let pending = false;
  const io: Io = {
    out: (s) => {
      if (pending) throw new Error('written while the output still held the piece before');
      written.push(s);
      events.push(`out ${s}`);
      pending = holdsBack(written.length);
      return !pending;
    },
    drained: async () => {
      await new Promise((r) => setTimeout(r, 1));
      pending = false;
      events.push('drained');
    },
    err: () => {},
    isTty: false,
  };
  return { io, written, events };
}

describe('writeOut', () => {
  it('waits for the output to drain whenever it holds back, and writes every piece in order', async () => {
    const { io, written, events } = slowReader((n) => n % 2 === 1);
    await writeOut(io, (function* () { yield* ['a', 'b', 'c', 'd']; })());
    expect(written).toEqual(['a', 'b', 'c', 'd']);
    expect(events).toEqual(['out a', 'drained', 'out b', 'out c', 'drained', 'out d']);
  });

  it('an output that never holds back (the tests\' capture) is written straight through', async () => {
    const got: string[] = [];
    await writeOut({ out: (s) => void got.push(s), err: () => {}, isTty: false }, ['x', 'y']);
    expect(got).toEqual(['x', 'y']);
  });
});
