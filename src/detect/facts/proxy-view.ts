import type { Db } from '../../store/db.js';
import { eachQueryRow } from '../query-rows.js';
import type { DetectOptions } from '../types.js';
import { compareNumeric, isDigits } from '../../model/event-order.js';
import { type Reconnect } from './reconnects.js';

// What a proxy-only log shows of a session: no emissions, retention or
// counters, only the SSE ids it saw go by in each response. Where those show
// the event sent right after a Last-Event-ID and the first id of the replay,
// the replay's start can still be judged.

export interface Sighting {
  recordId: number;
  atMs: number;
  ids: string[];
  /** The upgrade inferred from the same access line, if any. */
  upgradeId: number | null;
}

export interface ProxyView {
  /** Sessions no server record names. */
  proxyOnly: Set<string>;
  sightings: Map<string, Sighting[]>;
  /**
   * Per session, each sighting by the upgrade on its line, and the sightings of each id in log order: a
   * reconnect looks its own up and where its Last-Event-ID went by (walking the session's sightings per
   * reconnect cost a long proxy-only session its length squared).
   */
  bySession: Map<string, { byUpgrade: Map<number, Sighting>; byId: Map<string, Sighting[]> }>;
}

export function loadProxyView(db: Db, opts: DetectOptions): ProxyView {
  const proxyOnly = new Set(Array.from(eachQueryRow<{ session: string }>(db, 'facts/proxy-only-sessions', opts), (r) => r.session));
  const sightings = new Map<string, Sighting[]>();
  const bySession: ProxyView['bySession'] = new Map();
  const rows = eachQueryRow<{ id: number; at_ms: number; session: string; sse_event_ids: string; upgrade_id: number | null }>(db, 'facts/proxy-sse-sightings', opts);
  for (const r of rows) {
    const sighting: Sighting = { recordId: r.id, atMs: r.at_ms, ids: (JSON.parse(r.sse_event_ids) as unknown[]).map(String), upgradeId: r.upgrade_id };
    const list = sightings.get(r.session) ?? [];
    list.push(sighting);
    sightings.set(r.session, list);
    let index = bySession.get(r.session);
    if (index === undefined) bySession.set(r.session, (index = { byUpgrade: new Map(), byId: new Map() }));
    if (sighting.upgradeId !== null && !index.byUpgrade.has(sighting.upgradeId)) index.byUpgrade.set(sighting.upgradeId, sighting);
    for (const id of new Set(sighting.ids)) {
      const withId = index.byId.get(id);
      if (withId === undefined) index.byId.set(id, [sighting]);
      else withId.push(sighting);
    }
  }
  return { proxyOnly, sightings, bySession };
}

export type ReplayStart =
  | { kind: 'unknown'; unseen: string }
  | { kind: 'continuous' }
  | { kind: 'skipped'; seenIn: number; next: string; first: string; skipped: string[] }
  | { kind: 'regressed'; seenIn: number | null; first: string };

/** Judges where a proxy-only resumption's replay started, from the SSE ids the proxy saw. */
export function proxyReplayStart(view: ProxyView, r: Reconnect): ReplayStart {
  const own = view.bySession.get(r.session)?.byUpgrade.get(r.upgradeId);
  const first = own?.ids[0];
  if (first === undefined) return { kind: 'unknown', unseen: 'which events the replay began with' };
  const last = r.last.eventId;
  const seen = lastSightingOf(view, r);
  if (seen === undefined) {
    if (isDigits(first) && isDigits(last) && compareNumeric(first, last) <= 0) return { kind: 'regressed', seenIn: null, first };
    return { kind: 'unknown', unseen: `which events were sent after ${last}` };
  }
  const at = seen.ids.indexOf(last);
  const next = seen.ids[at + 1];
  if (first === next) return { kind: 'continuous' };
  const firstAt = seen.ids.indexOf(first);
  if (firstAt >= 0 && firstAt <= at) return { kind: 'regressed', seenIn: seen.recordId, first };
  if (next === undefined) {
    // The sighting ended at the Last-Event-ID: what came after it was not seen, but a numeric first id at or below
    // it went backwards, as where the id was never seen (the proxy saw it go by, so it was no future position)
    if (isDigits(first) && isDigits(last) && compareNumeric(first, last) <= 0) return { kind: 'regressed', seenIn: seen.recordId, first };
    return { kind: 'unknown', unseen: `which events were sent after ${last}` };
  }
  if (firstAt > at + 1) return { kind: 'skipped', seenIn: seen.recordId, next, first, skipped: seen.ids.slice(at + 1, firstAt) };
  if (isDigits(first) && isDigits(last) && isDigits(next)) {
    if (compareNumeric(first, last) <= 0) return { kind: 'regressed', seenIn: seen.recordId, first };
    if (compareNumeric(first, next) > 0) {
      const skipped = seen.ids.slice(at + 1).filter((id) => isDigits(id) && compareNumeric(id, first) < 0);
      return { kind: 'skipped', seenIn: seen.recordId, next, first, skipped };
    }
  }
  return { kind: 'unknown', unseen: `where event ${first} lies in the stream` };
}

/** Was the Last-Event-ID seen go by before this reconnect (the proxy's view of "emitted")? */
export function proxySawEmitted(view: ProxyView, r: Reconnect): boolean {
  return lastSightingOf(view, r) !== undefined;
}

/** The latest sighting of the reconnect's Last-Event-ID up to the reconnect, on another line than its own. */
function lastSightingOf(view: ProxyView, r: Reconnect): Sighting | undefined {
  const withId = view.bySession.get(r.session)?.byId.get(r.last.eventId);
  if (withId === undefined) return undefined;
  // in log order, so those up to the reconnect are a prefix
  let lo = 0;
  let hi = withId.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (withId[mid]!.atMs <= r.atMs) lo = mid + 1;
    else hi = mid;
  }
  let i = lo - 1;
  while (i >= 0 && withId[i]!.upgradeId === r.upgradeId) i--;
  return i >= 0 ? withId[i] : undefined;
}
