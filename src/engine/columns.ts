// Typed-array columns that grow as values are pushed, ids made of digits and
// the ids a counter writes: what keeps a long session's events (event-log.ts) and their emitters
// (store/event-emitters.ts) in about a fifth of the memory objects took.

/** Decimal integers as a counter writes them (no sign, no leading zero), exact as doubles: the same id as string and as number. */
const COUNTER_ID = /^(?:0|[1-9][0-9]{0,14})$/;

/** An id made of digits: where an id was never emitted, such ids compare as numbers (retention.ts, trim-index.ts, event-log.ts). */
export function isDigits(id: string): boolean {
  return /^\d+$/.test(id);
}

/** The id as a number, where it is one a counter writes (undefined: keep it as a string). */
export function counterValue(id: string): number | undefined {
  return COUNTER_ID.test(id) ? Number(id) : undefined;
}

type TypedArray = Int32Array | Float64Array | Uint8Array;

/**
 * A typed array that grows as values are pushed, by half its size: a long session's columns are most of what it
 * keeps. Data only (the state stays structured-cloneable): it grows by its array's own constructor.
 *
 * It holds no array until the first push: a typed array costs about 270 bytes however short, and a session id
 * minted again and again makes an incarnation, with its event log's nine columns, each time (200k
 * incarnations of one id took 1.6 GB), most of them emitting nothing.
 */
export class Column<T extends TypedArray> {
  private data: T;
  length = 0;

  constructor(make: new (size: number) => T) {
    this.data = emptyOf(make);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new (this.data.constructor as new (size: number) => T)(Math.max(FIRST_SIZE, this.length + (this.length >> 1)));
      grown.set(this.data as never);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  at(i: number): number {
    return this.data[i]!;
  }

  set(i: number, value: number): void {
    this.data[i] = value;
  }

  last(): number {
    return this.data[this.length - 1]!;
  }

  /** Where `value` sits in this ascending column (-1: it is not in it). */
  search(value: number): number {
    let lo = 0;
    let hi = this.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.data[mid]!;
      if (at === value) return mid;
      if (at < value) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

const FIRST_SIZE = 16;

/** One empty array per kind, shared by every column before its first push: nothing is ever written into it. */
const EMPTY = new Map<new (size: number) => TypedArray, TypedArray>();

function emptyOf<T extends TypedArray>(make: new (size: number) => T): T {
  let empty = EMPTY.get(make);
  if (empty === undefined) EMPTY.set(make, (empty = new make(0)));
  return empty as T;
}
