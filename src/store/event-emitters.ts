// Which streams of one session emitted each event id, in the order they did:
// the fold (fold-session.ts) asks which stream a resumption from an id resumes
// (the last to emit it) and whether a request.sent's stream emitted its event.
//
// A session's ids are most often a counter's, each greater than the one before:
// those sit in two typed arrays, the id and a stream number, searched by halves,
// about 12 bytes an event. A Map of id strings took about 60 (a soak test's one
// session of 3M lines: 1.6M ids). Any other id (not a decimal integer as the
// counter writes it, not greater than every id before, or emitted again on
// another stream) is kept in a Map, as before.

/** Decimal integers as a counter writes them (no sign, no leading zero), exact as doubles: the same id as string and as number. */
const COUNTER_ID = /^(?:0|[1-9][0-9]{0,14})$/;

export class EventEmitters {
  private ids = new Float64Array(1024);
  private streamNos = new Int32Array(1024);
  private size = 0;
  private readonly streams: string[] = [];
  private readonly streamNo = new Map<string, number>();
  /** Ids kept apart: the streams that emitted each, the latest last (one stream, the common case: a string). */
  private readonly others = new Map<string, string | string[]>();

  /** `stream` emitted `eventId`. */
  note(eventId: string, stream: string): void {
    const other = this.others.get(eventId);
    if (other !== undefined) {
      this.others.set(eventId, withLatest(other, stream));
      return;
    }
    const id = COUNTER_ID.test(eventId) ? Number(eventId) : undefined;
    if (id === undefined) {
      this.others.set(eventId, stream);
      return;
    }
    if (this.size === 0 || id > this.ids[this.size - 1]!) {
      this.append(id, stream);
      return;
    }
    const at = this.find(id);
    const first = at < 0 ? undefined : this.streams[this.streamNos[at]!]!;
    if (first === undefined) this.others.set(eventId, stream);
    else if (first !== stream) this.others.set(eventId, [first, stream]);
  }

  /** The stream that emitted `eventId` last, if any did. */
  last(eventId: string): string | undefined {
    const other = this.others.get(eventId);
    if (other !== undefined) return typeof other === 'string' ? other : other[other.length - 1];
    const at = this.counterAt(eventId);
    return at < 0 ? undefined : this.streams[this.streamNos[at]!];
  }

  /** Whether `stream` emitted `eventId`. */
  emittedOn(eventId: string, stream: string): boolean {
    const other = this.others.get(eventId);
    if (other !== undefined) return typeof other === 'string' ? other === stream : other.includes(stream);
    const at = this.counterAt(eventId);
    return at >= 0 && this.streams[this.streamNos[at]!] === stream;
  }

  private counterAt(eventId: string): number {
    return this.size > 0 && COUNTER_ID.test(eventId) ? this.find(Number(eventId)) : -1;
  }

  private append(id: number, stream: string): void {
    if (this.size === this.ids.length) {
      this.ids = grown(this.ids, new Float64Array(this.size * 2));
      this.streamNos = grown(this.streamNos, new Int32Array(this.size * 2));
    }
    let no = this.streamNo.get(stream);
    if (no === undefined) this.streamNo.set(stream, (no = this.streams.push(stream) - 1));
    this.ids[this.size] = id;
    this.streamNos[this.size++] = no;
  }

  /** Where `id` sits among the counter's ids (-1: it is not one). */
  private find(id: number): number {
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.ids[mid]!;
      if (at === id) return mid;
      if (at < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

/** The emitters of an id once `stream` emits it again: moved to the end if it already had. */
function withLatest(emitters: string | string[], stream: string): string | string[] {
  if (emitters === stream) return stream;
  if (typeof emitters === 'string') return [emitters, stream];
  if (emitters[emitters.length - 1] !== stream) {
    const at = emitters.indexOf(stream);
    if (at >= 0) emitters.splice(at, 1);
    emitters.push(stream);
  }
  return emitters;
}

function grown<T extends Float64Array | Int32Array>(from: T, into: T): T {
  into.set(from);
  return into;
}
