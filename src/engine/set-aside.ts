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
  override noteRepeat(): void {
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

/** The incarnation's collections set aside when empty (the event log and the trim index are checked apart). */
const COLLECTIONS = [
  'streams', 'sequences', 'lineages', 'unsuperseded', 'standaloneRoots', 'live', 'requests', 'sentUnresolved', 'callsByRpc', 'awaitingRescue',
] as const satisfies readonly (keyof Incarnation)[];

type Collections = Record<(typeof COLLECTIONS)[number], Map<unknown, unknown> | Set<unknown>>;

function untouched(t: TrimIndex): boolean {
  const s = t.session;
  return s.beforePos === -1 && s.unplacedDigits.size === 0 && s.highestUnplaced === undefined && t.byStream.size + t.byLane.size + t.unplaced.size === 0;
}

/** Shares the empty collections of an incarnation a newer one replaced. */
export function setAside(inc: Incarnation): void {
  const fields = inc as unknown as Collections;
  for (const field of COLLECTIONS) {
    const c = fields[field];
    if (c.size === 0) fields[field] = c instanceof Map ? NO_ENTRIES : NO_MEMBERS;
  }
  if (inc.events.size === 0) inc.events = NO_EVENTS;
  if (untouched(inc.trimIndex)) inc.trimIndex = NO_TRIMS;
  inc.setAside = true;
}

/** Gives an incarnation set aside collections of its own again, before a record writes to it. */
export function takeUp(inc: Incarnation): void {
  if (inc.setAside !== true) return;
  const fields = inc as unknown as Collections;
  for (const field of COLLECTIONS) {
    const c = fields[field];
    if (c === NO_ENTRIES) fields[field] = new Map();
    else if (c === NO_MEMBERS) fields[field] = new Set();
  }
  if (inc.events === NO_EVENTS) inc.events = new EventLog();
  if (inc.trimIndex === NO_TRIMS) inc.trimIndex = emptyTrimIndex();
  delete inc.setAside;
}
