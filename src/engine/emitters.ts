// Which incarnations of a session id emitted an event id: a Last-Event-ID that the serving
// incarnation never emitted is foreign if another one did (decide.ts). Asking each incarnation in
// turn made a session id minted again and again quadratic: 20k incarnations of one id, each
// presenting an id of its own, took 11.7 s. Past SCAN_LIMIT incarnations an index answers: each
// id -> the one incarnation that emitted it, or null where several did. Kept as records come
// (decide only reads it), and never built for a session of few incarnations, whose ids it would
// copy for nothing.

import type { EngineState, Incarnation } from './types.js';

/** Up to this many incarnations, they are asked one by one. */
export const SCAN_LIMIT = 16;

/** Whether an incarnation other than `inc` emitted `id`. */
export function emittedByAnother(state: EngineState, inc: Incarnation, id: string): boolean {
  const index = state.emitters;
  if (index === undefined) return state.incarnations.some((other) => other !== inc && other.events.has(id));
  const by = index.get(id);
  return by === null || (by !== undefined && by !== inc);
}

/** After an incarnation is added: the index is built once there are more than SCAN_LIMIT. */
export function noteIncarnations(state: EngineState): void {
  if (state.emitters !== undefined || state.incarnations.length <= SCAN_LIMIT) return;
  const index: Map<string, Incarnation | null> = new Map();
  for (const inc of state.incarnations) for (const id of inc.events.keys()) noteIn(index, inc, id);
  state.emitters = index;
}

/** After `inc` emitted `id` for the first time. */
export function noteEmitted(state: EngineState, inc: Incarnation, id: string): void {
  if (state.emitters !== undefined) noteIn(state.emitters, inc, id);
}

function noteIn(index: Map<string, Incarnation | null>, inc: Incarnation, id: string): void {
  const by = index.get(id);
  if (by === undefined) index.set(id, inc);
  else if (by !== null && by !== inc) index.set(id, null);
}
