import { createState, observe, REVISION_RULES, requestFromUpgrade, revisionOf, type EngineRequest, type EngineState, type Incarnation } from '../engine/index.js';
import type { Db } from '../store/db.js';
import { at } from '../model/phrasing.js';
import { compareNumeric, isDigits } from '../model/event-order.js';
import { loadQuery } from '../store/queries.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../model/thresholds.js';
import { isAccepted, STORED_RECORD_JSON, storedRow, toEngineRecord, toLoggedUpgrade, type LoggedUpgrade, type StoredRow } from './stored-record.js';

// Replays every session's server records through the embedded engine and
// stops at each logged upgrade, with the state the engine knew just before
// it: the engine-divergence cross-check and what-if both re-ask the logged
// reconnects from here. One scan of the records table, grouped per session in
// SQLite: walking the records_session index instead visits the rows in index
// order, one random page read each, which at millions of rows costs twice the
// scan and sort (docs/performance.md). The visitors only compute, so the
// cursor stays open.

const PAGE = 2000;

/** A session replayed to its end: what the engine knew once it had observed every record. */
export interface SessionPoint {
  /** null: the requests without a session (2026-07-28) that one response stream carries, replayed on their own. */
  session: string | null;
  /** The session's protocol version (the session_versions view; undefined: none logged). */
  protocolVersion: string | undefined;
  state: EngineState;
  /** The record the engine observed at position `pos` of this session's replay. */
  recordIdAt(pos: number): number | undefined;
}

export interface ReplayOptions {
  sharedSessionStore?: boolean;
  /** Sessions with more records than this are read row by row (default LONG_SESSION_RECORDS; tests). */
  longSessionRecords?: number;
  /** Called once per session with server records, after its last record. */
  onSession?: (s: SessionPoint) => void;
}

/** One logged reconnect, paused just before the engine observes the server's answer. */
export interface UpgradePoint {
  upgrade: LoggedUpgrade;
  request: EngineRequest;
  /** What the engine knew just before the upgrade (undefined: nothing of the session). Read it, never mutate it. */
  state: EngineState | undefined;
  /** Why the engine's answer here cannot stand for a correct server's (proxy log only, log starts mid-session). */
  unknowable?: string;
  /** The record the engine observed at position `pos` of this session's replay. */
  recordIdAt(pos: number): number | undefined;
  /** The `session.created` record that began this incarnation. */
  createdRecordId(inc: Incarnation): number | undefined;
}

/**
 * Each upgrade's request carries its protocol version: the upgrade's own, else its session's;
 * for an initialize, the session it minted first (the revision it negotiated), so that the
 * engine judges each session by the revision it speaks.
 */
export function forEachUpgrade(db: Db, visit: (p: UpgradePoint) => void, opts: ReplayOptions = {}): void {
  const versions = sessionVersions(db);
  visitSessionlessUpgrades(db, visit, versions);
  const foreign = foreignLastEventIds(db);
  // The analyzer can see a node continue another node's events (a shared store); the engine cannot.
  const shared: ReadonlySet<number> | 'all' = opts.sharedSessionStore ? 'all' : new Set(db.prepare(loadQuery('facts/node-continuations')).pluck().all() as number[]);
  const replaySession = (session: string, records: Iterable<unknown[]>) => {
    const replay = new SessionReplay(session, { foreign, shared, version: versions.get(session) }, visit, opts.onSession);
    for (const values of records) replay.add(storedRow(values));
    replay.finish();
  };
  const long = db.prepare(LONG_SESSIONS).pluck().all(opts.longSessionRecords ?? LONG_SESSION_RECORDS) as string[];
  const longSessions = new LongSessionRecords(db, long);
  // Each other session's records as one JSON array of records, in session order, the long ones replayed in their place.
  // One sort: the rows sorted by session and time, then joined per session as they come. The GROUP BY reads the
  // sorted rows in their order (no second b-tree), and so does group_concat. json_group_array(… ORDER BY ts_ms, id)
  // sorted twice, by session for the groups and within each group (1M independent production lines: 1.85 → 1.45 s).
  const sessions = db.prepare(
    `SELECT session, '[' || group_concat(record, ',') || ']' FROM (
       SELECT session, ${STORED_RECORD_JSON} AS record FROM records NOT INDEXED
       WHERE session IS NOT NULL AND ${REPLAYED} AND session NOT IN (SELECT value FROM json_each(?))
       ORDER BY session, ts_ms, id)
     GROUP BY session ORDER BY session`,
  ).raw(true);
  for (const [session, json] of sessions.iterate(JSON.stringify(long)) as IterableIterator<[string, string]>) {
    longSessions.replayBefore(session, replaySession);
    replaySession(session, JSON.parse(json) as unknown[][]);
  }
  longSessions.replayBefore(undefined, replaySession);
  if (opts.onSession) replaySessionlessRequests(db, opts.onSession);
}

/**
 * The client requests without a session (2026-07-28), for the what-if: each call with the records of the
 * response stream it names (its opening, its events, its close), replayed on their own as a session's would
 * be. A call that names no stream is alone: its response cannot be placed, so it is counted, not judged.
 */
function replaySessionlessRequests(db: Db, visit: (s: SessionPoint) => void): void {
  const rows = db
    .prepare(
      `SELECT ${STORED_RECORD_JSON} FROM records
       WHERE session IS NULL AND kind IN ('call', 'stream.opened', 'event.sent', 'stream.closed', 'stream.fenced') AND shadowed = 0
       ORDER BY ts_ms, id`,
    )
    .pluck();
  const groups = new Map<string, { state: EngineState; ids: number[]; version: string | undefined }>();
  for (const json of rows.iterate() as IterableIterator<string>) {
    const row = storedRow(JSON.parse(json) as unknown[]);
    const key = row.stream ?? `#${row.id}`;
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { state: createState(), ids: [], version: undefined }));
    g.version ??= row.protocol_version ?? undefined;
    g.ids[g.state.nextPos] = row.id;
    observe(g.state, toEngineRecord(row));
  }
  for (const g of groups.values()) visit({ session: null, protocolVersion: g.version, state: g.state, recordIdAt: (pos) => g.ids[pos] });
}

/** The records the replay observes: what the server logged, and what a proxy saw that the server's log does not show. */
const REPLAYED = "shadowed = 0 AND kind <> 'http'";

/**
 * Sessions too long to read as one value (at about 250 bytes a record, this many make a string of 5 MB): a soak
 * test's single session may hold millions of records. Counted in the records_session index alone, http records too.
 */
const LONG_SESSION_RECORDS = 20_000;
const LONG_SESSIONS = 'SELECT session FROM records WHERE session IS NOT NULL GROUP BY session HAVING count(*) > ? ORDER BY session';

/**
 * The long sessions' records, row by row, from one sorted scan (through the records_session index, each row
 * is a random read of the table), each session replayed where it falls in session order.
 */
class LongSessionRecords {
  private readonly rows: IterableIterator<[string, string]> | undefined;
  private next: [string, string] | undefined;

  constructor(db: Db, sessions: string[]) {
    if (sessions.length === 0) return;
    this.rows = db
      .prepare(
        `SELECT session, ${STORED_RECORD_JSON} FROM records NOT INDEXED
         WHERE session IN (SELECT value FROM json_each(?)) AND ${REPLAYED} ORDER BY session, ts_ms, id`,
      )
      .raw(true)
      .iterate(JSON.stringify(sessions)) as IterableIterator<[string, string]>;
    this.next = this.rows.next().value;
  }

  /** Replays each long session that SQLite orders before `limit` (every one left: undefined). */
  replayBefore(limit: string | undefined, replay: (session: string, records: Iterable<unknown[]>) => void): void {
    while (this.next !== undefined && (limit === undefined || sqliteOrder(this.next[0], limit) < 0)) replay(this.next[0], this.of(this.next[0]));
  }

  private *of(session: string): Generator<unknown[]> {
    while (this.next !== undefined && this.next[0] === session) {
      yield JSON.parse(this.next[1]) as unknown[];
      this.next = this.rows!.next().value;
    }
  }
}

/** SQLite's BINARY order: UTF-8 bytes (JS compares UTF-16 units, which differ beyond U+FFFF). */
function sqliteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * Upgrades without a session (initialize, Last-Event-ID alone, a GET): no state to replay, the request
 * alone decides. A proxy sees those headers as well as the server: a Last-Event-ID it saw without a
 * session is judged too, and so is a GET it saw (its method, which a proxy logs, decides at a revision
 * without a GET stream) where it carried MCP-Protocol-Version: a GET without it may be no MCP request at all
 * (a load balancer's health check, which proxy inference reads as an attach). Not a proxy's mint: it is inferred from any response that carried a new session
 * id, whatever the request was, and the engine would take it for an initialize.
 */
function visitSessionlessUpgrades(db: Db, visit: (p: UpgradePoint) => void, versions: ReadonlyMap<string, string>): void {
  const page = db.prepare(
    `SELECT ${STORED_RECORD_JSON} FROM records
     WHERE session IS NULL AND kind = 'upgrade' AND (origin = 'server' OR last_event_id IS NOT NULL OR (http_method = 'GET' AND protocol_version IS NOT NULL)) AND shadowed = 0 AND (ts_ms, id) > (@ts, @id)
     ORDER BY ts_ms, id LIMIT ${PAGE}`,
  ).pluck();
  let cursor = { ts: Number.MIN_SAFE_INTEGER, id: -1 };
  for (;;) {
    const rows = (page.all(cursor) as string[]).map((record) => storedRow(JSON.parse(record) as unknown[]));
    for (const row of rows) {
      const upgrade = toLoggedUpgrade(row);
      // An initialize selects the legacy revision it negotiated: its session's, which the request may not log.
      const minted = upgrade.newSession === undefined ? undefined : versions.get(upgrade.newSession);
      const request = withVersion(requestFromUpgrade(upgrade.record), minted, upgrade, upgrade.newSession !== undefined);
      visit({ upgrade, request, state: undefined, recordIdAt: () => undefined, createdRecordId: () => undefined, unknowable: upstreamFailure(upgrade) });
    }
    if (rows.length < PAGE) break;
    const last = rows[rows.length - 1]!;
    cursor = { ts: last.ts_ms, id: last.id };
  }
}

/**
 * Each session's protocol version (the session_versions view, store/views.ts: the one
 * definition the summary and the stateless-era rules read). Nothing to read when no record carries one.
 */
function sessionVersions(db: Db): Map<string, string> {
  if (db.prepare('SELECT 1 FROM records WHERE protocol_version IS NOT NULL LIMIT 1').get() === undefined) return new Map();
  const rows = db.prepare('SELECT session, protocol_version FROM session_versions').raw(true).all() as [string, string][];
  return new Map(rows);
}

/**
 * The request's own version where it carries one, else the session's; for a mint, the session's first (the
 * revision an initialize selects is the one it negotiated; the request may log the one it asked for). At a
 * revision with no GET stream (2026-07-28) the method decides (a GET is a 405, any other request is served on
 * its own), so it is the one the log says where it does (a proxy's line), else what log-format.md says the
 * upgrade is: one that carries Last-Event-ID or mints a session may be a POST, and a client of that revision
 * opens no GET stream, so it is a POST with a stale header (the engine's default, a GET, would be a 405 and a
 * divergence on every such request); one with neither can only be a GET. A stale Mcp-Session-Id, which that
 * revision ignores, changes neither.
 */
function withVersion(request: EngineRequest, sessionVersion: string | undefined, logged: Pick<LoggedUpgrade, 'httpMethod' | 'newSession'>, sessionFirst = false): EngineRequest {
  const version = sessionFirst ? (sessionVersion ?? mintedAt(request)) : (request.protocolVersion ?? sessionVersion);
  if (version === undefined) {
    const { protocolVersion: _asked, ...unversioned } = request;
    return unversioned;
  }
  const revision = revisionOf(version);
  if (request.httpMethod !== undefined || revision === undefined || REVISION_RULES[revision].getStream) return { ...request, protocolVersion: version };
  const post = request.lastEventId !== null || logged.newSession !== undefined || request.isInitialize === true;
  return { ...request, protocolVersion: version, httpMethod: logged.httpMethod?.toUpperCase() ?? (post ? 'POST' : 'GET') };
}

/**
 * The version a mint's request logs, where it can be the one it was answered at: an initialize that minted a
 * session was answered by a revision that has initialize and sessions, so a version without them (2026-07-28,
 * which a dual-era client asks for first) is the one it asked for and says nothing (the session_versions view).
 */
function mintedAt(request: EngineRequest): string | undefined {
  const revision = request.protocolVersion === undefined ? undefined : revisionOf(request.protocolVersion);
  return request.isInitialize === true && revision !== undefined && !REVISION_RULES[revision].sessions ? undefined : request.protocolVersion;
}

/** Upgrades whose Last-Event-ID another session had sent and their own had not (queries/facts/foreign-last-event-ids.sql). */
function foreignLastEventIds(db: Db): Set<number> {
  return new Set(db.prepare(loadQuery('facts/foreign-last-event-ids')).pluck().all({ clock_skew_allowance_ms: CLOCK_SKEW_ALLOWANCE_MS }) as number[]);
}

class SessionReplay {
  private state: EngineState | undefined;
  private readonly recordIds: number[] = [];
  private readonly createdIds = new Map<Incarnation, number>();
  /** A creation held back one record: it may be the re-mint that answers the upgrade logged right after it. */
  private heldCreation: StoredRow | undefined;
  /** Proxy-inferred upgrades, judged only if the session turns out to have no server record at all. */
  private readonly proxyUpgrades: StoredRow[] = [];
  private serverRecords = 0;

  constructor(
    readonly session: string,
    private readonly known: { foreign: ReadonlySet<number>; shared: ReadonlySet<number> | 'all'; version: string | undefined },
    private readonly visit: (p: UpgradePoint) => void,
    private readonly visitSession?: (s: SessionPoint) => void,
  ) {}

  add(row: StoredRow): void {
    if (row.origin !== 'server' && this.serverRecords === 0) {
      if (row.kind === 'upgrade') this.proxyUpgrades.push(row);
      return;
    }
    // What a proxy saw that the server did not log (derive shadows what it did), in a session the
    // server's records show: a reconnect is judged with the state they give, as the server's own
    // would be, and an answer the proxy saw counts as the server's would.
    if (row.origin !== 'server') {
      if (row.kind === 'upgrade') this.visitUpgrade(row);
      this.observe(row);
      return;
    }
    this.serverRecords++;
    const held = this.heldCreation;
    this.heldCreation = undefined;
    if (held && isOwnReMint(held, row)) {
      this.visitUpgrade(row);
      this.observe(held);
      this.observe(row);
      return;
    }
    if (held) this.observe(held);
    if (row.kind === 'session.created' && this.state?.incarnations.some((i) => i.created || i.ended)) {
      this.heldCreation = row;
      return;
    }
    if (row.kind === 'upgrade') this.visitUpgrade(row);
    this.observe(row);
  }

  finish(): void {
    if (this.heldCreation) this.observe(this.heldCreation);
    if (this.serverRecords > 0) {
      if (this.visitSession && this.state) {
        this.visitSession({ session: this.session, protocolVersion: this.known.version, state: this.state, recordIdAt: (pos) => this.recordIds[pos] });
      }
      return;
    }
    for (const row of this.proxyUpgrades) {
      const upgrade = toLoggedUpgrade(row);
      const point = this.point(upgrade);
      // A stateless-era request is answered before any session is looked at: the server's state is not needed.
      if (isSessionlessRevision(point.request.protocolVersion)) {
        this.visit({ ...point, unknowable: upstreamFailure(upgrade) });
        continue;
      }
      this.visit({
        ...point,
        unknowable: `proxy log only: the server's own records of ${this.session} (streams, events, retention, pending requests) are not in the log, so what a correct server would have decided cannot be replayed`,
      });
    }
  }

  private visitUpgrade(row: StoredRow): void {
    const upgrade = toLoggedUpgrade(row);
    this.visit({ ...this.point(upgrade), unknowable: upstreamFailure(upgrade) ?? this.unknowable(upgrade) });
  }

  private point(upgrade: LoggedUpgrade): UpgradePoint {
    return {
      upgrade,
      request: {
        ...withVersion(requestFromUpgrade(upgrade.record), this.known.version, upgrade),
        ...(this.known.foreign.has(upgrade.id) && { foreignSession: true }),
        ...((this.known.shared === 'all' || this.known.shared.has(upgrade.id)) && { sharedStore: true }),
      },
      state: this.state,
      recordIdAt: (pos) => this.recordIds[pos],
      createdRecordId: (inc) => this.createdIds.get(inc),
    };
  }

  private unknowable(u: LoggedUpgrade): string | undefined {
    const state = this.state;
    if (state !== undefined && !state.incarnations.some((i) => i.created) && !rejectedWhateverCameBefore(state, u)) {
      return `the log starts after ${this.session} was created (its records before ${at(u.tsMs)} come with no session.created), so the engine cannot know its history and would answer 404 to every reconnect`;
    }
    if (state === undefined && isAccepted(u) && (u.decision === 'resume' || u.decision === 'attach')) {
      return `the log holds nothing of ${this.session} before the ${u.decision} at ${at(u.tsMs)}: it may start after the session was created, so whether a correct server knew it cannot be told`;
    }
    return undefined;
  }

  private observe(row: StoredRow): void {
    const state = (this.state ??= createState());
    this.recordIds[state.nextPos] = row.id;
    observe(state, toEngineRecord(row));
    if (row.kind === 'session.created') this.createdIds.set(state.incarnations[state.incarnations.length - 1]!, row.id);
  }
}

/** A revision without sessions (2026-07-28): the engine answers its requests from the request alone. */
function isSessionlessRevision(version: string | undefined): boolean {
  const revision = version === undefined ? undefined : revisionOf(version);
  return revision !== undefined && !REVISION_RULES[revision].sessions;
}

/** The gateway statuses a proxy answers itself when no upstream answered (bad gateway, unavailable, timeout). */
const GATEWAY_FAILURES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * A reconnect only a proxy logged (a server's record of it would shadow it), answered 502/503/504: the
 * proxy's own answer for an upstream that failed, not a server's reconnect decision (log-format.md infers
 * decisions from a 200 and a 404 only), so what the server decided is not knowable.
 */
function upstreamFailure(u: LoggedUpgrade): string | undefined {
  if (u.origin !== 'proxy' || u.status === undefined || !GATEWAY_FAILURES.has(u.status)) return undefined;
  const what = u.session === null ? 'a reconnect without a session' : `the reconnect of ${u.session}`;
  return `the proxy answered ${what} at ${at(u.tsMs)} with ${u.status} and no server logged the request: an upstream failure, not a server's decision, so what the server decided cannot be told`;
}

/**
 * A creation of an id the log already had, in the same millisecond as an accepted upgrade
 * of it, is that upgrade's own answer (a re-mint, as silent-fork reads it): the engine is
 * asked what it knew before it.
 */
function isOwnReMint(created: StoredRow, next: StoredRow): boolean {
  return next.kind === 'upgrade' && next.ts_ms === created.ts_ms && isAccepted(toLoggedUpgrade(next));
}

/**
 * A log that starts mid-session hides the session's history, so the engine's answer (it knows no
 * creation: 404) cannot stand for a correct server's, except where any history gives the same
 * class: the log shows the session ended before the reconnect, or the reconnect names a numeric
 * event id above every one the session sent (ids before the log began came earlier). A correct
 * server rejects both.
 */
function rejectedWhateverCameBefore(state: EngineState, u: LoggedUpgrade): boolean {
  const last = state.incarnations[state.incarnations.length - 1];
  if (last?.ended !== undefined) return true;
  const id = u.lastEventId === undefined || u.lastEventId === null ? undefined : String(u.lastEventId);
  if (id === undefined || !isDigits(id)) return false;
  // Every digit id the session sent is below it: the highest is (a list of them per reconnect made a long session's
  // reconnects cost its events each).
  let highest: string | undefined;
  for (const inc of state.incarnations) {
    const own = inc.events.highestDigitId();
    if (own !== undefined && (highest === undefined || compareNumeric(own, highest) > 0)) highest = own;
  }
  return highest !== undefined && compareNumeric(highest, id) < 0;
}
