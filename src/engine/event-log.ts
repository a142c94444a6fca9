// The events an incarnation emitted, in emission order, with each lane's
// order: what a resumption replays and what retention asks about. A soak
// test's one session emits millions of events and the engine keeps every one
// for the session's life (any of them may be a client's Last-Event-ID), so they
// are kept in columns of typed arrays, not an object, a Map entry and an id
// string each: about 60 bytes an event where those took about 340 (a session
// of 3M lines: 1.6M events). An `EmittedEvent` is made when asked for.
//
// Ids a counter writes (decimal, each greater than the counter's last) are
// their number and are found by halves; any other id is found in a Map.

import { Column, counterValue, isDigits } from './columns.js';

/** One event as the engine reads it. */
export interface EmittedEvent {
  id: string;
  /** The lane (lanes.ts) when emitted: the record's `sequence`, else its stream's lane, which a resumption continues. */
  lane: string;
  stream?: string;
  pos: number;
  tsMs: number;
  laneIndex: number;
  attached: boolean;
  /** The server-to-client request this event carried, if any. */
  requestId?: string;
}

const NONE = -1;

export class EventLog {
  // One value per event, by its number (emission order).
  private readonly lane = new Column(Int32Array);
  private readonly stream = new Column(Int32Array);
  private readonly pos = new Column(Int32Array);
  private readonly tsMs = new Column(Float64Array);
  private readonly laneIndex = new Column(Int32Array);
  private readonly attached = new Column(Uint8Array);
  /** The next event of the same lane (NONE: the lane's last so far). */
  private readonly nextInLane = new Column(Int32Array);
  /** The event before it in its lane (NONE: the lane's first): a lane joined late is merged from its end. */
  private readonly prevInLane = new Column(Int32Array);
  // The Maps below are made when first needed (see Column): most incarnations never need them.
  private requestIds: Map<number, string> | undefined;
  /** Events whose id was emitted again later (a fork): where a server resumes from such an id is ambiguous. */
  private repeated: Set<number> | undefined;

  // Counter ids, ascending, and the event each is (ascending too): searched by halves.
  private readonly counterIds = new Column(Float64Array);
  private readonly counterEvents = new Column(Int32Array);
  private otherIds: Map<number, string> | undefined;
  private byOtherId: Map<string, number> | undefined;

  // Lanes and streams by number; each lane's last event and length.
  private readonly names: string[] = [];
  private readonly nameNo = new Map<string, number>();
  private readonly laneFirst: number[] = [];
  private readonly laneLast: number[] = [];
  private readonly laneLength: number[] = [];
  /** The highest digit id among those kept as strings (the counter's highest is its last). */
  private highestOtherDigits: string | undefined;

  get size(): number {
    return this.pos.length;
  }

  has(id: string): boolean {
    return this.find(id) !== NONE;
  }

  /** The event with this id (a fresh object: read it, the log does not change through it). */
  get(id: string): EmittedEvent | undefined {
    const n = this.find(id);
    return n === NONE ? undefined : this.event(n);
  }

  /** Records the first emission of `id` (the caller has checked that it is the first); its place in its lane is set here. */
  add(id: string, e: { lane: string; stream?: string; pos: number; tsMs: number; attached: boolean }): EmittedEvent {
    const n = this.pos.length;
    const asNumber = counterValue(id) ?? NaN;
    if (this.counterIds.length === 0 ? asNumber >= 0 : asNumber > this.counterIds.last()) {
      this.counterIds.push(asNumber);
      this.counterEvents.push(n);
    } else {
      (this.otherIds ??= new Map()).set(n, id);
      (this.byOtherId ??= new Map()).set(id, n);
      if (isDigits(id) && (this.highestOtherDigits === undefined || BigInt(id) > BigInt(this.highestOtherDigits))) this.highestOtherDigits = id;
    }
    const lane = this.numberOf(e.lane);
    this.ensureLane(lane);
    if (this.laneLast[lane] !== NONE) this.nextInLane.set(this.laneLast[lane]!, n);
    else this.laneFirst[lane] = n;
    this.prevInLane.push(this.laneLast[lane]!);
    this.laneLast[lane] = n;
    this.lane.push(lane);
    this.stream.push(e.stream === undefined ? NONE : this.numberOf(e.stream));
    this.pos.push(e.pos);
    this.tsMs.push(e.tsMs);
    this.laneIndex.push(this.laneLength[lane]!++);
    this.attached.push(e.attached ? 1 : 0);
    this.nextInLane.push(NONE);
    return this.event(n);
  }

  /**
   * The lane `from` joined `to` (lanes.ts): its events move into `to`, in emission order among `to`'s. Only the
   * events of `to` emitted after the first of `from` are visited (from the lane's end): a lane that joins
   * before it has events (a resumption's new stream, as logs most often order it) costs nothing.
   */
  joinLane(from: string, to: string): void {
    const fromNo = this.nameNo.get(from);
    if (from === to || fromNo === undefined || fromNo >= this.laneLength.length || this.laneLength[fromNo] === 0) return;
    const toNo = this.numberOf(to);
    this.ensureLane(toNo);
    const firstMoved = this.laneFirst[fromNo]!;
    // The events of `to` from the first one after firstMoved: the stretch the two lanes interleave in.
    let before = this.laneLast[toNo]!;
    while (before !== NONE && before > firstMoved) before = this.prevInLane.at(before);
    let a = before === NONE ? this.laneFirst[toNo]! : this.nextInLane.at(before);
    let b = firstMoved;
    let index = before === NONE ? 0 : this.laneIndex.at(before) + 1;
    let prev = before;
    while (a !== NONE || b !== NONE) {
      let n: number;
      if (b === NONE || (a !== NONE && a < b)) {
        n = a;
        a = this.nextInLane.at(a);
      } else {
        n = b;
        b = this.nextInLane.at(b);
        this.lane.set(n, toNo);
      }
      if (prev === NONE) this.laneFirst[toNo] = n;
      else this.nextInLane.set(prev, n);
      this.prevInLane.set(n, prev);
      this.laneIndex.set(n, index++);
      prev = n;
    }
    this.nextInLane.set(prev, NONE);
    this.laneLast[toNo] = prev;
    this.laneLength[toNo]! += this.laneLength[fromNo]!;
    this.laneFirst[fromNo] = NONE;
    this.laneLast[fromNo] = NONE;
    this.laneLength[fromNo] = 0;
  }

  /** Notes that `id`, already in the log, was emitted again; the log keeps its first place. */
  noteRepeat(id: string): void {
    const n = this.find(id);
    if (n !== NONE) (this.repeated ??= new Set()).add(n);
  }

  /** Whether `id` was emitted more than once. */
  isRepeated(id: string): boolean {
    return this.repeated !== undefined && this.repeated.has(this.find(id));
  }

  /** The highest id made of digits emitted so far, the ids compared as numbers (undefined: none). */
  highestDigitId(): string | undefined {
    const counter = this.counterIds.length === 0 ? undefined : String(this.counterIds.last());
    const other = this.highestOtherDigits;
    if (counter === undefined || other === undefined) return counter ?? other;
    return BigInt(other) > BigInt(counter) ? other : counter;
  }

  /** Notes the server-to-client request an event carried; the first one noted stays. */
  noteRequest(id: string, requestId: string): void {
    const n = this.find(id);
    if (n !== NONE && !this.requestIds?.has(n)) (this.requestIds ??= new Map()).set(n, requestId);
  }

  /** How many events `lane` holds. */
  laneSize(lane: string): number {
    const no = this.nameNo.get(lane);
    return no === undefined || no >= this.laneLength.length ? 0 : this.laneLength[no]!;
  }

  /** The ids emitted on `event`'s lane after it, in lane order: what a resumption from it replays. */
  after(event: EmittedEvent): string[] {
    const ids: string[] = [];
    const n = this.find(event.id);
    if (n === NONE) return ids;
    for (let next = this.nextInLane.at(n); next !== NONE; next = this.nextInLane.at(next)) ids.push(this.idOf(next));
    return ids;
  }

  /** The event `k` places after `event` in its lane (k >= 1), if the lane has that many after it. */
  nthAfter(event: EmittedEvent, k: number): EmittedEvent | undefined {
    let n = this.find(event.id);
    for (let i = 0; i < k && n !== NONE; i++) n = this.nextInLane.at(n);
    return n === NONE ? undefined : this.event(n);
  }

  /** Every id, in emission order. */
  *keys(): Generator<string> {
    for (let n = 0; n < this.pos.length; n++) yield this.idOf(n);
  }

  /** Every event, in emission order. */
  *values(): Generator<EmittedEvent> {
    for (let n = 0; n < this.pos.length; n++) yield this.event(n);
  }

  private event(n: number): EmittedEvent {
    const stream = this.stream.at(n);
    const event: EmittedEvent = {
      id: this.idOf(n),
      lane: this.names[this.lane.at(n)]!,
      stream: stream === NONE ? undefined : this.names[stream],
      pos: this.pos.at(n),
      tsMs: this.tsMs.at(n),
      laneIndex: this.laneIndex.at(n),
      attached: this.attached.at(n) === 1,
    };
    const requestId = this.requestIds?.get(n);
    if (requestId !== undefined) event.requestId = requestId;
    return event;
  }

  private idOf(n: number): string {
    const other = this.otherIds?.get(n);
    return other ?? String(this.counterIds.at(this.counterEvents.search(n)));
  }

  private find(id: string): number {
    const value = counterValue(id);
    if (value !== undefined) {
      const at = this.counterIds.search(value);
      if (at !== NONE) return this.counterEvents.at(at);
    }
    return this.byOtherId?.get(id) ?? NONE;
  }

  private ensureLane(lane: number): void {
    while (this.laneLast.length <= lane) {
      this.laneFirst.push(NONE);
      this.laneLast.push(NONE);
      this.laneLength.push(0);
    }
  }

  /** Lane and stream names share one numbering: a stream's id is most often its lane's name too. */
  private numberOf(name: string): number {
    let no = this.nameNo.get(name);
    if (no === undefined) this.nameNo.set(name, (no = this.names.push(name) - 1));
    return no;
  }
}
