import type { Emission, OrderedId } from '../../model/event-order.js';

// The served reconnects (accepted resumes, and fresh answers to a
// Last-Event-ID) with every event id they name placed in the timeline, from
// queries/facts/reconnect-references.sql: one query, grouped here per upgrade.

export type RefRole = 'last_event_id' | 'first_replayed' | 'first_seen' | 'replayed_ids' | 'event.replayed';

export interface EventRef extends OrderedId {
  role: RefRole;
  /** The record whose line names this id (the upgrade, or an event.replayed). */
  namedBy: number;
  /** Where an earlier incarnation of the session, or another session, emitted it (only when `own` is null). */
  elsewhere: { recordId: number; session: string; stream: string; how: 'earlier-incarnation' | 'other-session' } | null;
  /**
   * Where `own` is null: the session's own emission of the id within CLOCK_SKEW_ALLOWANCE_MS after the upgrade, on
   * another clock than the upgrade's, taken for one sent before it by a node whose clock runs ahead.
   */
  ownLater: number | null;
}

/**
 * The replay window of a placed Last-Event-ID: what its lane sent after it, before the upgrade. Before it by
 * causality where the clocks disagree: the Last-Event-ID's send within the clock-skew allowance after the upgrade
 * on another clock (its `ownLater`), and the lane up to the first send of each id the upgrade replayed, logged
 * after it by another node (a server cannot replay what was not yet written).
 */
export interface ReplayWindow {
  /** The Last-Event-ID's send the window follows: its own emission, else its later one on another clock. */
  from: Emission;
  /** The lane's last position logged before the upgrade (`from.pos` where none is after it). */
  headPos: number;
  /** Beyond `headPos`: the resumed stream's events up to this lane position, before the upgrade by causality. */
  reach: { pos: number; stream: string } | null;
  /** The events in the window: the lane's after `from` up to `headPos`, and `reach`'s. */
  afterCount: number;
  /** The window's last event (when any came after Last-Event-ID). */
  headId: number | null;
  /** The window's first event. */
  next: { recordId: number; eventId: string } | null;
}

export interface Reconnect {
  upgradeId: number;
  session: string;
  atMs: number;
  origin: 'server' | 'proxy';
  node: string | null;
  decision: 'resume' | 'fresh';
  stream: string | null;
  newStream: string | null;
  /** The lane of the stream the upgrade says it resumed (`upgrade.stream`). */
  resumedLane: string | null;
  replayed: number | null;
  replayedIds: string[] | null;
  newSession: string | null;
  resetSignalled: boolean | null;
  /** The session.created this upgrade falls in; null when the log holds none before it. */
  incarnationId: number | null;
  incarnationTs: number | null;
  last: EventRef;
  /** first_replayed, first_seen, replayed_ids and event.replayed ids, in that order. */
  replays: EventRef[];
  window: ReplayWindow | null;
  /**
   * Where no stream had sent the Last-Event-ID before the upgrade (neither placed in the session nor
   * elsewhere): its first emission in the log, after the upgrade; null where it was never sent.
   */
  firstEmission: { recordId: number; atMs: number; session: string; stream: string } | null;
  /** The first session.state_changed after Last-Event-ID was sent (or, where it was never placed, after the incarnation began) and before the upgrade. */
  stateChange: { recordId: number; aspect: string | null; atMs: number } | null;
  answeredInWindowId: number | null;
  /** For a Last-Event-ID no one emitted: the highest numeric id the session did emit. */
  highestNumeric: { recordId: number; eventId: string } | null;
}

/** One row of queries/facts/reconnect-references.sql: an upgrade and one event id it names. */
export interface ReconnectRow {
  up_id: number;
  session: string;
  at_ms: number;
  origin: 'server' | 'proxy';
  node: string | null;
  decision: 'resume' | 'fresh';
  stream: string | null;
  new_stream: string | null;
  resumed_lane: string | null;
  replayed: number | null;
  replayed_ids: string | null;
  new_session: string | null;
  reset_signalled: number | null;
  inc_id: number | null;
  inc_ts: number | null;
  role: RefRole;
  named_by: number;
  event_id: string;
  own_id: number | null;
  own_stream: string | null;
  own_lane: string | null;
  own_pos: number | null;
  own_ts: number | null;
  earlier_incarnation_id: number | null;
  other_session_id: number | null;
  other_session: string | null;
  other_stream: string | null;
  own_later_id: number | null;
  anchor_id: number | null;
  anchor_stream: string | null;
  anchor_lane: string | null;
  anchor_pos: number | null;
  anchor_ts: number | null;
  head_pos: number | null;
  reach_pos: number | null;
  reach_stream: string | null;
  head_id: number | null;
  after_count: number | null;
  next_id: number | null;
  next_event_id: string | null;
  first_emission_id: number | null;
  first_emission_ts: number | null;
  first_emission_session: string | null;
  first_emission_stream: string | null;
  state_change_id: number | null;
  state_change_aspect: string | null;
  state_change_ts: number | null;
  answered_in_window_id: number | null;
  highest_numeric_id: number | null;
  highest_numeric_event_id: string | null;
}

/** The reconnects of reconnect-references rows in the query's order (each upgrade's last_event_id row first, then its replays). */
export function* groupReconnects(rows: Iterable<ReconnectRow>): Generator<Reconnect> {
  let current: Reconnect | undefined;
  for (const row of rows) {
    const ref = toRef(row);
    if (row.role === 'last_event_id') {
      if (current !== undefined) yield current;
      current = toReconnect(row, ref);
    } else if (current?.upgradeId === row.up_id) {
      current.replays.push(ref);
    }
  }
  if (current !== undefined) yield current;
}

function toRef(row: ReconnectRow): EventRef {
  const own: Emission | null =
    row.own_id === null ? null : { recordId: row.own_id, stream: row.own_stream!, lane: row.own_lane!, pos: row.own_pos!, tsMs: row.own_ts! };
  const elsewhereId = row.earlier_incarnation_id ?? row.other_session_id;
  return {
    role: row.role,
    eventId: String(row.event_id),
    namedBy: row.named_by,
    own,
    elsewhere:
      elsewhereId === null
        ? null
        : {
            recordId: elsewhereId,
            session: row.other_session!,
            stream: row.other_stream!,
            how: row.earlier_incarnation_id !== null ? 'earlier-incarnation' : 'other-session',
          },
    ownLater: row.own_later_id,
  };
}

function toReconnect(row: ReconnectRow, last: EventRef): Reconnect {
  return {
    upgradeId: row.up_id,
    session: row.session,
    atMs: row.at_ms,
    origin: row.origin,
    node: row.node,
    decision: row.decision,
    stream: row.stream,
    newStream: row.new_stream,
    resumedLane: row.resumed_lane,
    replayed: row.replayed,
    replayedIds: row.replayed_ids === null ? null : (JSON.parse(row.replayed_ids) as unknown[]).map(String),
    newSession: row.new_session,
    resetSignalled: row.reset_signalled === null ? null : row.reset_signalled === 1,
    incarnationId: row.inc_id,
    incarnationTs: row.inc_ts,
    last,
    replays: [],
    window:
      row.anchor_id === null
        ? null
        : {
            from: { recordId: row.anchor_id, stream: row.anchor_stream!, lane: row.anchor_lane!, pos: row.anchor_pos!, tsMs: row.anchor_ts! },
            headPos: row.head_pos ?? row.anchor_pos!,
            reach: row.reach_pos === null ? null : { pos: row.reach_pos, stream: row.reach_stream! },
            afterCount: row.after_count ?? 0,
            headId: row.head_id,
            next: row.next_id === null ? null : { recordId: row.next_id, eventId: String(row.next_event_id) },
          },
    firstEmission:
      row.first_emission_id === null
        ? null
        : { recordId: row.first_emission_id, atMs: row.first_emission_ts!, session: row.first_emission_session!, stream: row.first_emission_stream! },
    stateChange:
      row.state_change_id === null ? null : { recordId: row.state_change_id, aspect: row.state_change_aspect, atMs: row.state_change_ts! },
    answeredInWindowId: row.answered_in_window_id,
    highestNumeric:
      row.highest_numeric_id === null ? null : { recordId: row.highest_numeric_id, eventId: String(row.highest_numeric_event_id) },
  };
}

/** The id a resumption says it replayed first: the server's first_replayed, else the first SSE id a proxy saw. */
export function firstReplayedRef(r: Reconnect): EventRef | undefined {
  return r.replays.find((x) => x.role === 'first_replayed') ?? r.replays.find((x) => x.role === 'first_seen');
}
