// Test helper: writes a session's log as terse record literals, with
// timestamps in seconds from a fixed origin, and replays it into a state.

import { createState, observe, type EngineRecord, type EngineState } from '../../src/engine/index.js';

export const T0 = Date.UTC(2026, 10, 9, 10, 0, 0);

/** Epoch ms of `seconds` after T0. */
export const at = (seconds: number): number => T0 + seconds * 1000;

/** Fields a log carries; some (such as `reason`) are logged but not read by the engine. */
export type Fields = Omit<Partial<EngineRecord>, 'kind' | 'tsMs'> & { reason?: string };

/** One record of `kind` at `seconds`, for session S1 unless `fields` says otherwise. */
export function rec(kind: string, seconds: number, fields: Fields = {}): EngineRecord {
  return { kind, tsMs: at(seconds), session: 'S1', ...fields };
}

export function stateOf(records: EngineRecord[]): EngineState {
  const state = createState();
  for (const record of records) observe(state, record);
  return state;
}

/** S1 created, a GET stream g1 open, events 1..n emitted on it one second apart. */
export function liveSessionWithEvents(n: number): EngineRecord[] {
  const records = [rec('session.created', 0, { principal: 'alice' }), rec('stream.opened', 0, { stream: 'g1', via: 'get', conn: 'c1' })];
  for (let i = 1; i <= n; i++) records.push(rec('event.sent', i, { stream: 'g1', eventId: String(i) }));
  return records;
}
