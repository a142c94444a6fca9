import type { EngineDecision, EngineRequest } from '../engine/index.js';
import { idList, plural } from '../model/phrasing.js';
import { loggedClass } from './re-decide.js';
import type { LoggedUpgrade } from './stored-record.js';
import { isStatelessEra, STATELESS_REVISION } from '../model/record.js';
import { atProtocol } from './revision-named.js';

// How a reconnect, the server's answer and the engine's answer read in a
// message: "server resumed S1 from 1101 (200); a correct server would reject
// 409 resumption_unavailable: position_evicted".

/** "S1 from 1101", "S1 without Last-Event-ID", "Last-Event-ID 5 without a session", "an initialize". */
export function requestSubject(req: EngineRequest): string {
  const { sessionId, lastEventId } = req;
  if (sessionId !== null) return lastEventId === null ? `${sessionId} without Last-Event-ID` : `${sessionId} from ${lastEventId}`;
  if (lastEventId !== null) return `Last-Event-ID ${lastEventId} without a session`;
  return req.isInitialize ? 'an initialize' : 'a request without a session';
}

/** What the server logged: "server resumed S1 from 1101 (200)". */
function loggedAnswer(u: LoggedUpgrade, req: EngineRequest): string {
  const subject = requestSubject(req);
  const status = u.status === undefined ? 'status not logged' : String(u.status);
  if (loggedClass(u) === 'reject') {
    return `server rejected ${subject} (${status}${u.reason ? ` ${u.reason}` : ''})`;
  }
  switch (u.decision) {
    case 'resume':
      return `server resumed ${subject} (${status})`;
    case 'attach':
      return `server attached a new stream to ${subject} (${status})`;
    case 'fresh': {
      const details = [status, u.newSession !== undefined && `new session ${u.newSession}`, u.resetSignalled === true && 'reset signalled'];
      return `server served ${subject} fresh (${details.filter(Boolean).join(', ')})`;
    }
    default:
      return `server answered ${subject} (${status})`;
  }
}

/** What the engine would do: "reject 409 resumption_unavailable: position_evicted", "resume it, replaying 6 and 7". */
function engineAnswer(d: EngineDecision): string {
  switch (d.decision) {
    case 'resume':
      return d.replay.length === 0 ? 'resume it (nothing to replay)' : `resume it, replaying ${plural(d.replay.length, 'event')} (${idList(d.replay)})`;
    case 'attach': {
      const pending = d.reemit.length > 0 ? `, re-emitting ${idList(d.reemit)}` : d.cancel.length > 0 ? `, cancelling ${idList(d.cancel)}` : '';
      return `attach a new stream${pending}`;
    }
    case 'fresh':
      if (d.resetSignalled) return `serve a new session and signal the reset (${d.reason}: ${d.checks.join(', ')})`;
      // Where the revision has no sessions: served on its own, headers ignored.
      return d.newSession ? 'mint a new session' : 'serve it on its own, with no session and nothing replayed (stateless_request)';
    case 'reject': {
      const checks = d.checks.filter((c) => c !== d.reason);
      return `reject ${d.status} ${d.reason}${checks.length > 0 ? `: ${checks.join(', ')}` : ''}`;
    }
  }
}

export function divergenceMessage(u: LoggedUpgrade, req: EngineRequest, d: EngineDecision): string {
  return `${loggedAnswer(u, req)}; a correct server would ${engineAnswer(d)}${revisionReason(req, d)}`;
}

/**
 * Why, where the engine's answer comes from the revision alone: ": at protocol 2026-07-28 initialize does not
 * exist …". Only a stateless revision lacks the handshake; the request's version names it where it is one (a
 * what-if that imposes the revision on an older log names the first such revision).
 */
function revisionReason(req: EngineRequest, d: EngineDecision): string {
  if (d.decision !== 'reject' || d.reason !== 'initialize_unsupported') return '';
  const version = isStatelessEra(req.protocolVersion) ? req.protocolVersion! : STATELESS_REVISION;
  return `: ${atProtocol(version)} initialize does not exist (its changelog: no handshake, no sessions), so no request of that revision opens a session`;
}
