// Streams and their lineages. A lineage is the chain of streams (HTTP response
// bodies) that carry one logical stream across resumptions: an accepted
// resume or attach, or a shared `sequence`, links a stream to the one it
// continues. Links always join two roots, so the chains never cycle.

import { hasLiveWriters, joinInOrder, joinLive, liveWritersOf, markDead as markDeadIn, markLive as markLiveIn, noteNode } from './live-writers.js';
import { isStandaloneLineage } from './standalone.js';
import { noteLanesJoined } from './trim-index.js';
import { joinAwaiting, joinLanes, joinSequence, laneName } from './lanes.js';
import type { EngineRecord, Incarnation, StreamInfo } from './types.js';

/** What a record can tell about the stream it names. */
type StreamFacts = Pick<EngineRecord, 'node' | 'conn' | 'principal' | 'sequence' | 'via'>;

export function isAcceptedUpgrade(record: EngineRecord): boolean {
  // A missing status is taken at its word: the server logged that it resumed or attached.
  if (record.status === undefined) return record.decision === 'resume' || record.decision === 'attach';
  return record.status >= 200 && record.status < 300;
}

/** The stream, registered from whatever record first names it (no `via` unless the record says). */
export function touchStream(inc: Incarnation, id: string, record: StreamFacts, pos: number): StreamInfo {
  let stream = inc.streams.get(id);
  if (!stream) {
    stream = { id, openedPos: pos, seen: inc.streams.size, closed: false, fenced: false, superseded: false };
    inc.streams.set(id, stream);
    inc.lineages.set(id, [stream]);
    inc.unsuperseded.set(id, new Set([stream]));
    markLive(inc, stream);
  }
  if (stream.node === undefined && record.node !== undefined) {
    stream.node = record.node;
    noteNode(inc, lineageRoot(inc, id), stream);
  }
  stream.conn ??= record.conn;
  stream.principal ??= record.principal;
  if (record.sequence !== undefined && stream.sequence === undefined) {
    stream.sequence = record.sequence;
    lanesJoined(inc, joinSequence(inc, stream, record.sequence));
    const root = inc.sequences.get(record.sequence);
    if (root === undefined) inc.sequences.set(record.sequence, id);
    else linkLineage(inc, id, root);
  }
  return stream;
}

/** A response body starts on this stream id; a reused id (the TypeScript SDK does that) is live again. */
export function openStream(inc: Incarnation, id: string, record: StreamFacts, pos: number): StreamInfo {
  const stream = touchStream(inc, id, record, pos);
  stream.via ??= record.via;
  if (stream.continues === undefined && isStandaloneLineage(stream.via)) inc.standaloneRoots.add(id);
  stream.openedPos = pos;
  stream.closed = false;
  stream.fenced = false;
  stream.superseded = false;
  unsupersededOf(inc, id).add(stream);
  markLive(inc, stream);
  stream.end = undefined;
  return stream;
}

/** The streams of `id`'s lineage not superseded since they (re)opened. */
function unsupersededOf(inc: Incarnation, id: string): Set<StreamInfo> {
  const root = lineageRoot(inc, id);
  let streams = inc.unsuperseded.get(root);
  if (streams === undefined) inc.unsuperseded.set(root, (streams = new Set()));
  return streams;
}

export function lineageRoot(inc: Incarnation, id: string): string {
  let current = id;
  for (let parent = inc.streams.get(current)?.continues; parent !== undefined; parent = inc.streams.get(current)?.continues) {
    current = parent;
  }
  return current;
}

function linkLineage(inc: Incarnation, newer: string, older: string): void {
  const newerRoot = lineageRoot(inc, newer);
  const olderRoot = lineageRoot(inc, older);
  const root = inc.streams.get(newerRoot);
  if (newerRoot === olderRoot || !root) return;
  root.continues = olderRoot;
  const moved = inc.lineages.get(newerRoot) ?? [];
  inc.lineages.delete(newerRoot);
  inc.lineages.set(olderRoot, joinInOrder(inc.lineages.get(olderRoot) ?? [], moved));
  inc.standaloneRoots.delete(newerRoot);
  inc.unsuperseded.set(olderRoot, union(inc.unsuperseded.get(olderRoot), inc.unsuperseded.get(newerRoot)));
  inc.unsuperseded.delete(newerRoot);
  joinLive(inc, olderRoot, newerRoot);
}

/** The stream may write (it opened, or reopened): live until it is closed or fenced. */
function markLive(inc: Incarnation, stream: StreamInfo): void {
  markLiveIn(inc, lineageRoot(inc, stream.id), stream);
}

/** The stream was closed or fenced: it writes no more. */
export function markDead(inc: Incarnation, stream: StreamInfo): void {
  markDeadIn(inc, lineageRoot(inc, stream.id), stream);
}

/** The two sets as one, the smaller added to the larger. */
function union<T>(a: Set<T> | undefined, b: Set<T> | undefined): Set<T> {
  if (a === undefined || b === undefined) return a ?? b ?? new Set();
  const [large, small] = a.size >= b.size ? [a, b] : [b, a];
  for (const x of small) large.add(x);
  return large;
}

/**
 * The streams of `id`'s lineage, in the order the incarnation first saw them. Kept per root as lineages are
 * linked: filtering every stream of the incarnation per resumption was quadratic in a session's length.
 */
export function lineageMembers(inc: Incarnation, id: string): StreamInfo[] {
  return [...(inc.lineages.get(lineageRoot(inc, id)) ?? [])];
}

/**
 * The live streams of `id`'s lineage (its prior writers), in the order the incarnation first saw them, as
 * live-writers.ts keeps them per lineage: neither filtered from the lineage, which a session thousands of
 * resumptions long makes thousands of streams long, nor from every live stream. Read at once: not a copy.
 */
export function liveLineageMembers(inc: Incarnation, id: string): readonly StreamInfo[] {
  return liveWritersOf(inc, lineageRoot(inc, id));
}

/**
 * The roots of the lineages a GET began, with live writers: an attach's prior writers are theirs. A resumed POST
 * response stays a POST lineage even though the resumption was a GET. Read from the standalone roots, not from
 * every lineage with a live writer, which a server that leaves its POST responses open makes many.
 */
export function liveStandaloneRoots(inc: Incarnation): string[] {
  return [...inc.standaloneRoots].filter((root) => hasLiveWriters(inc, root));
}

/**
 * An accepted `resume` supersedes the stream it resumes and the stream that emitted
 * `last_event_id`; an accepted `attach` supersedes every earlier standalone stream.
 * The new stream continues their lineage.
 */
export function observeUpgrade(inc: Incarnation, record: EngineRecord, pos: number): void {
  if (!isAcceptedUpgrade(record)) return;
  let superseded: StreamInfo[];
  /** The streams the new one continues: a resume's own two; an attach's, one of each standalone lineage. */
  let continued: string[];
  if (record.decision === 'resume') {
    const emitter = record.lastEventId == null ? undefined : inc.events.get(String(record.lastEventId))?.stream;
    continued = [...new Set([record.stream, emitter])].filter((s): s is string => s !== undefined);
    superseded = continued.map((id) => touchStream(inc, id, {}, pos));
  } else if (record.decision === 'attach') {
    // Every standalone stream but the new one is superseded: those already superseded stay as they are, so only
    // the others are visited, and each standalone lineage is linked once (the rest of it then shares the new
    // stream's root). Visiting every stream of the session made an attach cost the session's length.
    superseded = [...inc.standaloneRoots].flatMap((root) => [...(inc.unsuperseded.get(root) ?? [])].filter((s) => s.id !== record.newStream));
    continued = standaloneLineageHeads(inc, record.newStream);
  } else {
    return;
  }
  for (const stream of superseded) {
    stream.superseded = true;
    unsupersededOf(inc, stream.id).delete(stream);
    stream.end ??= { how: 'superseded', pos };
  }
  if (record.newStream === undefined) return;
  // The new stream's kind comes from its lineage; only a fresh standalone stream is known to be a GET.
  const via = record.decision === 'attach' ? 'get' : undefined;
  const opened = openStream(inc, record.newStream, { node: record.node, conn: record.conn, principal: record.principal, sequence: record.sequence, via }, pos);
  opened.openedBy = pos;
  for (const id of continued) linkLineage(inc, record.newStream, id);
  // A resume continues the stream it names (else the one that emitted Last-Event-ID): the new stream's events go
  // on that lane. An attach continues no stream's events: its lane is its own.
  const resumed = record.decision === 'resume' ? continued[0] : undefined;
  if (resumed !== undefined && resumed !== record.newStream) {
    lanesJoined(inc, joinLanes(inc, laneName(opened), laneName(inc.streams.get(resumed)!)));
  }
}

/** Two lanes became one: what each of the lane's indexes holds of the one that joined moves to the other. */
function lanesJoined(inc: Incarnation, joined: { from: string; to: string } | undefined): void {
  if (joined === undefined) return;
  inc.events.joinLane(joined.from, joined.to);
  noteLanesJoined(inc, joined);
  joinAwaiting(inc, joined.from, joined.to);
}

/**
 * Of each standalone lineage, the first stream the incarnation saw other than `except`, in that order: linking
 * the new stream of an attach to these links it to every standalone stream, as linking to each in turn did.
 */
function standaloneLineageHeads(inc: Incarnation, except: string | undefined): string[] {
  const heads: StreamInfo[] = [];
  for (const root of inc.standaloneRoots) {
    const head = inc.lineages.get(root)!.find((s) => s.id !== except);
    if (head !== undefined) heads.push(head);
  }
  return heads.sort((a, b) => a.seen - b.seen).map((s) => s.id);
}

