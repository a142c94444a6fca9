// Since revision 2026-07-28 a request has no session, and log-format.md says a record without a
// protocol version inherits its session's. A stateless request's records have no session to inherit
// from, and a server may write the version only where the request begins (its `call`, its response's
// `stream.opened`): its later records (the events on that stream, its close) would have been rejected
// for a missing session. They inherit the version of their stream instead, as their request's records,
// where an earlier session-less record of the same file named that stream with a stateless version.
// Kept per file, until the stream's close, and for at most MAX_STREAMS streams at once.
//
// Kept by the store, which reads a file's records in order whichever thread normalized them: kept by
// each normalizing thread, a stream named on one thread was unknown on the other, as their timing fell.

import { BoundedMap } from '../model/bounded-map.js';
import { isStatelessEra } from '../model/record.js';

/** Stateless streams open at once in one file; beyond it the oldest is forgotten (a server that logs no closes). */
export const MAX_STREAMS = 10_000;

export class StatelessStreams {
  private readonly versions = new BoundedMap<string, string>(MAX_STREAMS);

  /** The stateless version a record on this stream, with no session and no version of its own, inherits (undefined: none). */
  inherited(stream: string): string | undefined {
    return this.versions.get(stream);
  }

  /** After a session-less record on `stream` is read: of a stateless version (its own or inherited), it names its stream for the next ones. */
  note(kind: string, stream: string, ownVersion: unknown): void {
    const version = typeof ownVersion === 'string' ? ownVersion : this.versions.get(stream);
    if (!isStatelessEra(version)) return;
    if (kind === 'stream.closed' || kind === 'stream.fenced') this.versions.delete(stream);
    else this.versions.set(stream, version!);
  }
}
