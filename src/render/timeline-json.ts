import { ownerAt } from '../model/incarnation-owner.js';
import type { SessionTimelineStream, TimelineRecord } from '../store/session-timeline.js';
import { jsonArrayChunks, nested } from './json.js';

/**
 * `timeline --format json`: the bytes of `JSON.stringify(timeline, null, 2)` (terminal-safe), in pieces
 * of about 64 KB, the records read as they are written: a soak test's session is hundreds of thousands.
 */
export function* timelineJsonChunks(t: SessionTimelineStream): Generator<string> {
  const version = t.protocol_version === undefined ? '' : `\n  "protocol_version": ${nested(t.protocol_version, 2)},`;
  yield `{\n  "session": ${nested(t.session, 2)},${version}\n  "incarnations": ${nested(t.incarnations, 2)},\n  "lanes": ${nested(t.lanes, 2)},\n  "records": `;
  yield* jsonArrayChunks(t.records, (r) => withOwner(r, ownerAt(t.incarnations, r.ts_ms)), 2);
  yield '\n}\n';
}

/** A record that names a principal also names the owner it answers to then (the text timeline's "not the owner"). */
function withOwner(r: TimelineRecord, owner: string | undefined): TimelineRecord {
  return typeof r.principal === 'string' && owner !== undefined ? { ...r, owner } : r;
}
