// The analyzer re-asks the engine every reconnect the server logged; this is
// the one place that turns a logged `upgrade` into the request it answered.

import type { EngineRecord, EngineRequest } from './types.js';

/**
 * The request behind a logged `upgrade` record. Decide it against the state observed
 * *before* that record: the record is the server's answer, not part of the question.
 * An upgrade without session or Last-Event-ID that minted a session (`fresh`) is taken to
 * be the `initialize` POST, the only request that may mint one.
 */
export function requestFromUpgrade(record: EngineRecord): EngineRequest {
  const sessionId = record.session == null || record.session === '' ? null : String(record.session);
  const lastEventId = record.lastEventId == null ? null : String(record.lastEventId);
  return {
    sessionId,
    lastEventId,
    tsMs: record.tsMs,
    node: record.node,
    conn: record.conn,
    principal: record.principal,
    isInitialize: sessionId === null && lastEventId === null && record.decision === 'fresh',
    ...(record.protocolVersion !== undefined && { protocolVersion: record.protocolVersion }),
  };
}
