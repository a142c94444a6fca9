import { servingIncarnation, type Policy } from '../engine/index.js';
import { isEventRetained } from '../engine/retention.js';
import type { UpgradePoint } from '../replay/engine-replay.js';
import { isAccepted, type LoggedUpgrade } from '../replay/stored-record.js';

// A server replays what its buffer still holds. When a logged trim had taken
// events, the resume that followed replayed short, and silent-truncation says
// so twice over: position trimmed, replay short. Under another retention the
// trim does not happen, but the logged counter still reads short; this tells
// the what-if that such a shortfall was the retention's doing, not the replay's.

/**
 * True when an accepted resume replayed fewer events than its window held, every event it
 * missed had been dropped by the logged retention (`asLogged`), and under `after` its
 * position would still be retained: a server with that retention would have had them.
 */
export function isRetentionShortfall(p: UpgradePoint, asLogged: Policy, after: Policy): boolean {
  const u = p.upgrade;
  if (after.retention === 'as-logged' || u.decision !== 'resume' || !isAccepted(u) || p.state === undefined || p.request.lastEventId === null) {
    return false;
  }
  const inc = servingIncarnation(p.state, p.request);
  const position = inc?.events.get(String(p.request.lastEventId));
  if (!inc || !position || !isEventRetained(inc, position, u.tsMs, after)) return false;
  const window = inc.events.after(position);
  const dropped = new Set(window.filter((id) => !isEventRetained(inc, inc.events.get(id)!, u.tsMs, asLogged)));
  if (dropped.size === 0) return false;
  const replayed = replayedOf(u, window);
  if (replayed === undefined) {
    // Only a count: short by exactly what was dropped, or by less.
    return u.replayed !== undefined && u.replayed < window.length && u.replayed >= window.length - dropped.size;
  }
  const missing = window.filter((id) => !replayed.has(id));
  return missing.length > 0 && missing.every((id) => dropped.has(id));
}

/** The ids the upgrade says it replayed: its list, or its count from first_replayed on; undefined when it names none. */
function replayedOf(u: LoggedUpgrade, window: string[]): Set<string> | undefined {
  if (u.replayedIds !== undefined) return new Set(u.replayedIds);
  if (u.replayed === undefined || u.firstReplayed === undefined) return undefined;
  const start = window.indexOf(u.firstReplayed);
  return start < 0 ? new Set() : new Set(window.slice(start, start + u.replayed));
}
