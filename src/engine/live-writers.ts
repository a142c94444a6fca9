// The live writers of each lineage: its streams neither closed nor fenced since
// they (re)opened, the prior writers a resume or attach meets. lineage.ts says
// which root a stream hangs on and calls these as streams open, close, learn
// their node and lineages join; decide.ts reads them.
//
// A server that logs no stream.closed leaves every stream of a lineage live, so
// each resumption meets all the earlier ones. Listing them per decision made
// such a session's replay its length squared (one session of 923k lines: 91 s).
// So a decision asks two things that cost no more than the nodes involved:
// whether any writer sits on another node (counts per node), and a snapshot of
// the writers in the order seen, listed only when the decision's fence is read.
// A snapshot is a list and its length: a list grows at its end in place; any
// other change (a close, a stream seen earlier, a join that interleaves) is
// made on a copy where a snapshot holds the list, so the snapshot reads the same.

import type { Incarnation, LiveWriters, StreamInfo } from './types.js';

/**
 * The lists a decision has taken a snapshot of. Not state (decide() leaves the state as it was): a list in it
 * is copied before it changes other than at its end. A clone of the state has lists of its own, none taken.
 */
const taken = new WeakSet<StreamInfo[]>();

function writersOf(inc: Incarnation, root: string): LiveWriters {
  let w = inc.live.get(root);
  if (w === undefined) inc.live.set(root, (w = { members: new Set(), inOrder: [], nodes: new Map() }));
  return w;
}

/** The writers' list, to change other than at its end: copied first if a snapshot holds it. */
function own(w: Pick<LiveWriters, 'inOrder'>): StreamInfo[] {
  if (taken.has(w.inOrder)) w.inOrder = w.inOrder.slice();
  return w.inOrder;
}

/**
 * `kept`'s list and `added`'s as one, in the order seen: extended in place where `added` comes after it (a snapshot
 * of it reads the same), otherwise into whichever list is longer, owned.
 */
function joinedLists(kept: LiveWriters, added: Pick<LiveWriters, 'inOrder'>): StreamInfo[] {
  const a = kept.inOrder;
  const b = added.inOrder;
  if (extendsInOrder(a, b)) return joinInOrder(a, b);
  return a.length >= b.length ? joinInOrder(own(kept), b) : joinInOrder(own(added), a);
}

/** The stream may write (it opened, or reopened): live until it is closed or fenced. */
export function markLive(inc: Incarnation, root: string, stream: StreamInfo): void {
  const w = writersOf(inc, root);
  if (w.members.has(stream)) return;
  w.members.add(stream);
  w.inOrder = joinedLists(w, { inOrder: [stream] });
  countNode(w, stream.node, 1);
}

/** The stream was closed or fenced: it writes no more. */
export function markDead(inc: Incarnation, root: string, stream: StreamInfo): void {
  const w = inc.live.get(root);
  if (w === undefined || !w.members.delete(stream)) return;
  // A lineage with no live writer left is forgotten: a long session's closed POST responses, each a lineage of its
  // own, would each keep a set, a list and a map.
  if (w.members.size === 0) {
    inc.live.delete(root);
    return;
  }
  const list = own(w);
  list.splice(list.indexOf(stream), 1);
  countNode(w, stream.node, -1);
}

/** A stream's node became known (stream.node was just set): counted if the stream is live. */
export function noteNode(inc: Incarnation, root: string, stream: StreamInfo): void {
  const w = inc.live.get(root);
  if (w !== undefined && w.members.has(stream)) countNode(w, stream.node, 1);
}

/** `newer`'s lineage now continues `older`'s: one set of live writers, under the older root. */
export function joinLive(inc: Incarnation, older: string, newer: string): void {
  const moved = inc.live.get(newer);
  if (moved === undefined) return;
  inc.live.delete(newer);
  const kept = inc.live.get(older);
  if (kept === undefined) {
    inc.live.set(older, moved);
    return;
  }
  for (const s of moved.members) kept.members.add(s);
  for (const [node, n] of moved.nodes) countNode(kept, node, n);
  kept.inOrder = joinedLists(kept, moved);
}

/** The live writers of the lineage rooted at `root`, in the order seen. Read it at once: it is not a copy. */
export function liveWritersOf(inc: Incarnation, root: string): readonly StreamInfo[] {
  return inc.live.get(root)?.inOrder ?? [];
}

/** Whether the lineage rooted at `root` has a live writer. */
export function hasLiveWriters(inc: Incarnation, root: string): boolean {
  return inc.live.has(root);
}

/**
 * How many live writers of these lineages are on a known node other than `node`: a node can fence only its own
 * writers, and one on another known node stays a second writer. Read from the counts per node.
 */
export function writersElsewhereCount(inc: Incarnation, roots: readonly string[], node: string | undefined): number {
  if (node === undefined) return 0;
  let n = 0;
  for (const root of roots) {
    for (const [other, count] of inc.live.get(root)?.nodes ?? []) if (other !== node) n += count;
  }
  return n;
}

export function writerElsewhere(inc: Incarnation, roots: readonly string[], node: string | undefined): boolean {
  return writersElsewhereCount(inc, roots, node) > 0;
}

/** Those writers of the lineage rooted at `root`, in the order seen. */
export function writersElsewhere(inc: Incarnation, root: string, node: string | undefined): StreamInfo[] {
  if (node === undefined) return [];
  return liveWritersOf(inc, root).filter((s) => s.node !== undefined && s.node !== node);
}

/**
 * The ids of these lineages' live writers as they are now, in the order seen, listed when called: later changes
 * to the lineages do not reach it.
 */
export function writerIdsNow(inc: Incarnation, roots: readonly string[]): () => string[] {
  const parts = roots.map((root) => {
    const list = inc.live.get(root)?.inOrder ?? [];
    taken.add(list);
    return { list, length: list.length };
  });
  return () => {
    const streams: StreamInfo[] = [];
    for (const { list, length } of parts) for (let i = 0; i < length; i++) streams.push(list[i]!);
    if (parts.length > 1) streams.sort((x, y) => x.seen - y.seen);
    return streams.map((s) => s.id);
  };
}

function countNode(w: LiveWriters, node: string | undefined, by: number): void {
  if (node === undefined) return;
  const n = (w.nodes.get(node) ?? 0) + by;
  if (n > 0) w.nodes.set(node, n);
  else w.nodes.delete(node);
}

/**
 * Two lists of streams, each in the order seen, as one: `b` appended to `a` where it comes after it, and otherwise
 * the shorter list's streams put into the longer by halves (the longer list changes in place and is returned). An
 * attach links its new stream to every standalone lineage, and sorting both lists whole per link made a session
 * attaching every few rounds quadratic.
 */
export function joinInOrder(a: StreamInfo[], b: StreamInfo[]): StreamInfo[] {
  if (extendsInOrder(a, b)) {
    for (const s of b) a.push(s);
    return a;
  }
  const [long, short] = a.length >= b.length ? [a, b] : [b, a];
  for (const s of short) {
    let lo = 0;
    let hi = long.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (long[mid]!.seen < s.seen) lo = mid + 1;
      else hi = mid;
    }
    long.splice(lo, 0, s);
  }
  return long;
}

/** Whether `b` comes after all of `a` (either empty included): appended, both stay in the order seen. */
function extendsInOrder(a: readonly StreamInfo[], b: readonly StreamInfo[]): boolean {
  return a.length === 0 || b.length === 0 || a[a.length - 1]!.seen < b[0]!.seen;
}
