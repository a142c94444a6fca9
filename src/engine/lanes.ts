// Lanes: the order a resumption replays in. A lane is named by a stream's
// `sequence`, else by its id; an accepted resume continues the resumed stream,
// so its new stream's lane joins the resumed stream's (the 2025-11-25
// transports page replays what "would have been sent after the last event ...
// on the stream that was disconnected"). This is the analyzer's timeline lane
// (store/fold-session.ts, README "Lanes"): an attach or a fresh stream starts a
// lane of its own, unlike a lineage (lineage.ts), which an attach extends for
// fencing. The joins are kept as names pointing at the lane they joined
// (`Incarnation.laneParents`), made when first needed: a log without
// resumptions has none. A lane that joins after it has events (a new stream
// whose node's clock is behind logs events before the upgrade that opened it)
// brings them along, in emission order among the other lane's (event-log.ts),
// as the analyzer, which orders a lane once the whole log is read, has them.

import type { AwaitingResponse, Incarnation, StreamInfo } from './types.js';

/** The lane `name` (a sequence or a stream id) belongs to now. Reads only: a decision may ask it. */
export function laneRoot(inc: Incarnation, name: string): string {
  const parents = inc.laneParents;
  if (parents === undefined) return name;
  let current = name;
  for (let parent = parents.get(current); parent !== undefined; parent = parents.get(current)) current = parent;
  return current;
}

/** The name a stream's own events go by: its sequence, else its id. */
export function laneName(stream: StreamInfo): string {
  return stream.sequence ?? stream.id;
}

/** The lane an event emitted now goes on: the sequence it names, else its stream's; the root, path made short. */
export function emissionLane(inc: Incarnation, sequence: string | undefined, stream: StreamInfo | undefined): string {
  const name = sequence ?? (stream === undefined ? '' : laneName(stream));
  const root = laneRoot(inc, name);
  if (root !== name && inc.laneParents!.get(name) !== root) inc.laneParents!.set(name, root);
  return root;
}

/**
 * Joins the lane of `newer` to the lane of `older`, which names the joined lane. Returns the root that stopped
 * being one (its trims now count for `older`'s root), or undefined when the two were one lane already.
 */
export function joinLanes(inc: Incarnation, newer: string, older: string): { from: string; to: string } | undefined {
  const from = laneRoot(inc, newer);
  const to = laneRoot(inc, older);
  if (from === to) return undefined;
  (inc.laneParents ??= new Map()).set(from, to);
  return { from, to };
}

/**
 * A stream learned its sequence after its id may have named a lane: the two names are one lane. The lane the id
 * had joined (a resumption continued it) stays the lane; else the sequence names it.
 */
export function joinSequence(inc: Incarnation, stream: StreamInfo, sequence: string): { from: string; to: string } | undefined {
  if (sequence === stream.id) return undefined;
  const joined = laneRoot(inc, stream.id) !== stream.id;
  return joined ? joinLanes(inc, sequence, stream.id) : joinLanes(inc, stream.id, sequence);
}

/** The lane `from` joined `to`: the responses waiting on it for a rescue (client-calls.ts) wait on `to`, in lane order. */
export function joinAwaiting(inc: Incarnation, from: string, to: string): void {
  const moved = inc.awaitingRescue.get(from);
  if (moved === undefined) return;
  inc.awaitingRescue.delete(from);
  const kept = inc.awaitingRescue.get(to) ?? [];
  const merged: AwaitingResponse[] = [];
  for (let i = 0, j = 0; i < kept.length || j < moved.length; ) {
    merged.push(j >= moved.length || (i < kept.length && kept[i]!.pos < moved[j]!.pos) ? kept[i++]! : moved[j++]!);
  }
  inc.awaitingRescue.set(to, merged);
}
