// The engine as a server embeds it: one state per session id, fed with the
// records the server writes, asked on every reconnect.

import { decide } from './decide.js';
import { resolvePolicy, type Policy } from './policy.js';
import { createState, observe } from './state.js';
import type { EngineState } from './types.js';
import type { EngineDecision, EngineRecord, EngineRequest } from './types.js';

export class ResumptionEngine {
  readonly policy: Policy;
  readonly #states = new Map<string, EngineState>();

  constructor(policy?: Partial<Policy>) {
    this.policy = resolvePolicy(policy);
  }

  /**
   * Feeds one record the server wrote, in order. Records for a session id the engine has
   * not seen created are dropped: they could never make it resumable, and keeping them
   * would let any client grow memory by presenting made-up session ids.
   */
  observe(record: EngineRecord): void {
    if (record.session == null || record.session === '') return;
    const sessionId = String(record.session);
    let state = this.#states.get(sessionId);
    if (!state) {
      if (record.kind !== 'session.created') return;
      state = createState();
      this.#states.set(sessionId, state);
    }
    observe(state, record);
  }

  /** Decides a reconnect against what has been observed so far. Does not change the state. */
  decide(request: EngineRequest): EngineDecision {
    const state = request.sessionId == null ? undefined : this.#states.get(request.sessionId);
    return decide(state, request, this.policy);
  }

  /** The tracked sessions by id. The states are live: read them, do not mutate them. */
  sessions(): ReadonlyMap<string, EngineState> {
    return this.#states;
  }

  /** Drops a session's state (after it ended and its log is no longer needed). */
  forget(sessionId: string): boolean {
    return this.#states.delete(sessionId);
  }
}
