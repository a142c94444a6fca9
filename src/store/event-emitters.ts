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

import { Column, counterValue } from '../engine/columns.js';

export class EventEmitters {
  private readonly ids = new Column(Float64Array);
  private readonly streamNos = new Column(Int32Array);
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
    const id = counterValue(eventId);
    if (id === undefined) {
      this.others.set(eventId, stream);
      return;
    }
    if (this.ids.length === 0 || id > this.ids.last()) {
      let no = this.streamNo.get(stream);
      if (no === undefined) this.streamNo.set(stream, (no = this.streams.push(stream) - 1));
      this.ids.push(id);
      this.streamNos.push(no);
      return;
    }
    const first = this.counterEmitter(id);
    if (first === undefined) this.others.set(eventId, stream);
    else if (first !== stream) this.others.set(eventId, [first, stream]);
  }

  /** The stream that emitted `eventId` last, if any did. */
  last(eventId: string): string | undefined {
    const other = this.others.get(eventId);
    if (other !== undefined) return typeof other === 'string' ? other : other[other.length - 1];
    const id = counterValue(eventId);
    return id === undefined ? undefined : this.counterEmitter(id);
  }

  /** Whether `stream` emitted `eventId`. */
  emittedOn(eventId: string, stream: string): boolean {
    const other = this.others.get(eventId);
    if (other !== undefined) return typeof other === 'string' ? other === stream : other.includes(stream);
    const id = counterValue(eventId);
    return id !== undefined && this.counterEmitter(id) === stream;
  }

  private counterEmitter(id: number): string | undefined {
    const at = this.ids.search(id);
    return at < 0 ? undefined : this.streams[this.streamNos.at(at)];
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
