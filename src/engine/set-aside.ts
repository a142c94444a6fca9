// An incarnation that a newer one of its session id replaced is reached again only by a record that
// names its nonce (state.ts, incarnationFor); until then the engine only reads it. A server that mints
// one id again and again (every client handed the same id) makes an incarnation each time, most of them
// emitting nothing, and each held fifteen empty Maps and Sets of its own: about 3 KB, which 200k
// incarnations of one id made 1.6 GB. Set aside, an incarnation's empty collections are shared
// read-only ones; a record that reaches it again gives it new ones first. Its other fields stay.

import { EventLog } from './event-log.js';
import { emptyTrimIndex } from './trim-index.js';
import type { Incarnation, TrimIndex } from './types.js';

class ReadOnly extends Error {
  constructor() {
    super('resumescope engine: an incarnation set aside was written to before it was taken up');
  }
}

class NoEntries extends Map<never, never> {
  override set(): this {
    throw new ReadOnly();
  }
  override delete(): boolean {
    throw new ReadOnly();
  }
  override clear(): void {
    throw new ReadOnly();
  }
}

class NoMembers extends Set<never> {
  override add(): this {
    throw new ReadOnly();
  }
  override delete(): boolean {
    throw new ReadOnly();
  }
  override clear(): void {
    throw new ReadOnly();
  }
}

class NoEvents extends EventLog {
  override add(): never {
    throw new ReadOnly();
  }
  override noteRequest(): void {
    throw new ReadOnly();
  }
}

const NO_ENTRIES = new NoEntries();
const NO_MEMBERS = new NoMembers();
const NO_EVENTS = new NoEvents();
const NO_TRIMS: TrimIndex = Object.freeze({
  session: Object.freeze({ beforePos: -1, unplacedDigits: NO_ENTRIES, highestUnplaced: undefined }),
  byStream: NO_ENTRIES,
  byLane: NO_ENTRIES,
  unplaced: NO_ENTRIES,
});

function shared<C extends Map<unknown, unknown> | Set<unknown>>(c: C): C {
  if (c.size > 0) return c;
  return (c instanceof Map ? NO_ENTRIES : NO_MEMBERS) as unknown as C;
}

function untouched(t: TrimIndex): boolean {
  const s = t.session;
  return s.beforePos === -1 && s.unplacedDigits.size === 0 && s.highestUnplaced === undefined && t.byStream.size + t.byLane.size + t.unplaced.size === 0;
}

/** Shares the empty collections of an incarnation a newer one replaced. */
export function setAside(inc: Incarnation): void {
  inc.streams = shared(inc.streams);
  inc.sequences = shared(inc.sequences);
  inc.lineages = shared(inc.lineages);
  inc.unsuperseded = shared(inc.unsuperseded);
  inc.standaloneRoots = shared(inc.standaloneRoots);
  inc.live = shared(inc.live);
  inc.requests = shared(inc.requests);
  inc.sentUnresolved = shared(inc.sentUnresolved);
  inc.callsByRpc = shared(inc.callsByRpc);
  inc.awaitingRescue = shared(inc.awaitingRescue);
  if (inc.events.size === 0) inc.events = NO_EVENTS;
  if (untouched(inc.trimIndex)) inc.trimIndex = NO_TRIMS;
  inc.setAside = true;
}

function own<C>(c: C, make: () => C): C {
  return (c as unknown) === NO_ENTRIES || (c as unknown) === NO_MEMBERS ? make() : c;
}

/** Gives an incarnation set aside collections of its own again, before a record writes to it. */
export function takeUp(inc: Incarnation): void {
  if (inc.setAside !== true) return;
  inc.streams = own(inc.streams, () => new Map());
  inc.sequences = own(inc.sequences, () => new Map());
  inc.lineages = own(inc.lineages, () => new Map());
  inc.unsuperseded = own(inc.unsuperseded, () => new Map());
  inc.standaloneRoots = own(inc.standaloneRoots, () => new Set());
  inc.live = own(inc.live, () => new Map());
  inc.requests = own(inc.requests, () => new Map());
  inc.sentUnresolved = own(inc.sentUnresolved, () => new Set());
  inc.callsByRpc = own(inc.callsByRpc, () => new Map());
  inc.awaitingRescue = own(inc.awaitingRescue, () => new Map());
  if (inc.events === NO_EVENTS) inc.events = new EventLog();
  if (inc.trimIndex === NO_TRIMS) inc.trimIndex = emptyTrimIndex();
  delete inc.setAside;
}
