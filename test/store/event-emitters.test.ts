// The fold asks which stream emitted an event id last (what a resumption from it
// resumes) and whether a stream emitted it (a request.sent's carrier). Over random
// emissions, EventEmitters answers as a Map of every id's emitters, in order, does:
// counter ids rising, falling, repeated on one stream or several, and ids that only
// look like numbers ('007', '1e3', ' 1').

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventEmitters } from '../../src/store/event-emitters.js';

/** The emitters of each id, the latest last, kept whole. */
class EveryEmitter {
  private readonly byId = new Map<string, string[]>();
  note(id: string, stream: string): void {
    const streams = (this.byId.get(id) ?? []).filter((s) => s !== stream);
    this.byId.set(id, [...streams, stream]);
  }
  last(id: string): string | undefined {
    return this.byId.get(id)?.at(-1);
  }
  emittedOn(id: string, stream: string): boolean {
    return this.byId.get(id)?.includes(stream) ?? false;
  }
}

const ids = ['0', '1', '2', '3', '9', '10', '11', '12', '007', '00', '1e3', ' 1', '-1', 'x', '999999999999999', '9007199254740992', '9007199254740993'];
const streams = ['g1', 'g2', 'p1'];

describe('EventEmitters', () => {
  it('answers last() and emittedOn() as a walk of every emission does, after every emission', () => {
    const emission = fc.record({ id: fc.constantFrom(...ids), stream: fc.constantFrom(...streams) });
    // Half the runs count up, as a server's counter does, with a few ids out of order among them.
    const counted = fc.array(fc.record({ step: fc.integer({ min: 1, max: 3 }), stream: fc.constantFrom(...streams), stray: fc.option(emission, { freq: 4 }) }), { maxLength: 60 });
    const emissions = fc.oneof(
      fc.array(emission, { maxLength: 60 }),
      counted.map((steps) => {
        let n = 0;
        return steps.flatMap(({ step, stream, stray }) => [{ id: String((n += step)), stream }, ...(stray ? [stray] : [])]);
      }),
    );
    fc.assert(
      fc.property(emissions, (list) => {
        const fast = new EventEmitters();
        const every = new EveryEmitter();
        const asked = [...ids, '4', '5', '6', '13', '40'];
        for (const { id, stream } of list) {
          fast.note(id, stream);
          every.note(id, stream);
          for (const q of asked) {
            expect(fast.last(q), `last(${q})`).toBe(every.last(q));
            for (const s of streams) expect(fast.emittedOn(q, s), `emittedOn(${q}, ${s})`).toBe(every.emittedOn(q, s));
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a counter of 100k ids apart from the ids that only look alike', () => {
    const e = new EventEmitters();
    for (let i = 1; i <= 100_000; i++) e.note(String(i), `g${Math.ceil(i / 7)}`);
    e.note('007', 'other');
    expect(e.last('7')).toBe('g1');
    expect(e.last('007')).toBe('other');
    expect(e.last('100000')).toBe('g14286');
    expect(e.last('100001')).toBeUndefined();
    e.note('7', 'g9');
    expect(e.last('7')).toBe('g9');
    expect(e.emittedOn('7', 'g1')).toBe(true);
  });
});
