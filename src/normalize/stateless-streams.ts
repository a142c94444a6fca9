// Since revision 2026-07-28 a request has no session, and log-format.md says a record without a
// protocol version inherits its session's. A stateless request's records have no session to inherit
// from, and a server may write the version only where the request begins (its `call`, its response's
// `stream.opened`): its later records (the events on that stream, its close) would have been rejected
// for a missing session. They inherit the version of their stream instead, as their request's records,
// where an earlier session-less record of the same file named that stream with a stateless version.
// Kept per file, until the stream's close, and for at most MAX_STREAMS streams at once.

import { BoundedMap } from '../model/bounded-map.js';
import { isStatelessEra, type NormalizedRecord } from '../model/record.js';

/** Stateless streams open at once in one file; beyond it the oldest is forgotten (a server that logs no closes). */
export const MAX_STREAMS = 10_000;

export class StatelessStreams {
  private readonly versions = new BoundedMap<string, string>(MAX_STREAMS);

  /** The stateless version a session-less record inherits from its stream (undefined: none to inherit). */
  inherited(rec: NormalizedRecord): string | undefined {
    if (rec.session != null || rec.protocolVersion !== undefined || rec.stream === undefined) return undefined;
    return this.versions.get(rec.stream);
  }

  /** After a record is accepted: a session-less record of a stateless version names its stream for the next ones. */
  note(rec: NormalizedRecord, version: string | undefined): void {
    if (rec.session != null || rec.stream === undefined || !isStatelessEra(version)) return;
    if (rec.kind === 'stream.closed' || rec.kind === 'stream.fenced') this.versions.delete(rec.stream);
    else this.versions.set(rec.stream, version!);
  }
}
