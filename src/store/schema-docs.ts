// What each table, view and column of the timeline holds, for `query --schema` and the README's
// "Querying the timeline". The list of tables and columns is read from a live database (so it is
// what a query sees); only the one-line meanings are kept here, beside schema.ts and views.ts.
// test/cli/query-schema.test.ts fails when a table, view or column has no line here, or a line
// names one that no longer exists: add the line with the column.

import type { Db } from './db.js';
//
// Units: *_ms and *_ts columns are epoch milliseconds (UTC); *_id columns that name a record are
// records.id. Booleans are 0/1.

export interface TableDoc {
  /** What one row is. */
  about: string;
  /** Column → its meaning. A view of records' rows (upgrades, calls, http) says `columns: 'records'`. */
  columns: Record<string, string> | 'records';
}

const RECORD_COLUMNS: Record<string, string> = {
  id: 'record id: insertion order, so that records of one millisecond keep file order',
  source_id: 'the input file (sources.id)',
  line: 'line number in that file (1-based)',
  ts_ms: 'when it happened, epoch ms (UTC)',
  kind: 'record kind: session.created, upgrade, event.sent, request.sent, call, http, … (log-format.md)',
  origin: 'server, or proxy (inferred from an http record)',
  shadowed: '1: a proxy inference superseded by a server record of the same req',
  seq: 'per-node counter, orders records within one node',
  node: 'the server instance that wrote it',
  session: 'the Mcp-Session-Id (NULL: none, as in 2026-07-28 requests)',
  incarnation: 'nonce minted with the session, tells apart two sessions of one id',
  stream: 'the SSE stream (one response body); on an upgrade, the stream last_event_id belongs to',
  sequence: 'the server\'s logical stream id across responses, where it has one',
  conn: 'transport connection id',
  principal: 'who the client is (a subject or token fingerprint, redacted if a credential)',
  req: 'request id shared by a server record and its proxy http record',
  via: 'stream.opened: get or post',
  reason: 'close, end, cancel or upgrade reason (free text or a code)',
  aspect: 'session.state_changed: what changed (capabilities, subscriptions, auth_scope, …)',
  log_evicted: 'session.evicted: 1 if its event log went with it',
  event_id: 'SSE event id (opaque text; integers kept as their digits)',
  rpc_kind: 'event.sent or http: request, response or notification',
  rpc_id: 'JSON-RPC id',
  method: 'JSON-RPC method',
  attached: 'event.sent: 1 if written to an attached client (default 1)',
  of_stream: 'event.replayed: the stream the event was first sent on',
  oldest_retained: 'buffer.trimmed: the oldest event id still replayable',
  last_event_id: 'upgrade: the Last-Event-ID header as received',
  new_stream: 'upgrade: the stream this request opened',
  decision: 'upgrade: resume, attach, fresh, reject, …',
  status: 'HTTP status returned',
  replayed: 'upgrade: events replayed on the new stream (NULL: not logged, unknown)',
  reemitted: 'upgrade: pending server requests re-emitted on it',
  cancelled: 'upgrade: pending server requests failed explicitly instead',
  first_replayed: 'upgrade: id of the first replayed event',
  replayed_ids: 'upgrade: every replayed id, a JSON array',
  new_session: 'upgrade: the session id minted (decision fresh)',
  reset_signalled: 'upgrade or http: 1 if the client was told of a discontinuity',
  request_id: 'server-to-client request id (request.* records)',
  new_request_id: 'request.reissued: the fresh id',
  tool: 'call: the tool name',
  args_hash: 'call: digest of its arguments',
  executed: 'call: 1 if it ran',
  http_method: 'http: the request method',
  path: 'http: the request path (no query string)',
  req_headers: 'http: request headers, a JSON object (credentials redacted)',
  resp_headers: 'http: response headers, a JSON object (credentials redacted)',
  sse_event_ids: 'http: SSE ids seen in the response body, a JSON array',
  duration_ms: 'http: how long the request took, ms',
  bytes: 'http: response bytes',
  extra: 'fields the format does not name, a JSON object (kept, not used)',
  protocol_version: 'MCP protocol revision the record names (log format 2)',
  retry_ms: 'stream.closed (poll): the retry the client was given, ms',
  priming: 'event.sent: 1 for a priming event',
  raw: 'the (redacted) log line; NULL where it is re-read from its file (see evidence.raw)',
  line_offset: 'byte offset of the line in its file',
  line_bytes: 'length of the line in bytes',
};

const REQUEST_COLUMNS: Record<string, string> = {
  session: 'the session id',
  request_id: 'the request id',
  sent_id: 'the request.sent record (records.id)',
  sent_ts: 'when it was sent, epoch ms',
  stream: 'the stream it was sent on',
  method: 'its JSON-RPC method',
  event_id: 'the event that carried it',
  answered_id: 'its first 2xx request.answered record',
  answered_ts: 'when, epoch ms',
  cancelled_id: 'its request.cancelled record',
  reissued_id: 'its request.reissued record',
  timed_out_id: 'its request.timed_out record',
  resolved_ts: 'first of answered, cancelled, reissued, epoch ms',
};

export const SCHEMA_DOCS: Record<string, TableDoc> = {
  meta: { about: 'internal: key/value settings of the database (schema_version)', columns: { key: 'setting name', value: 'its value' } },
  sources: {
    about: 'one row per input file ingested',
    columns: {
      id: 'source id (records.source_id)',
      name: 'the file as given on the command line; evidence cites it',
      sha256: 'content hash: the same bytes are never ingested twice',
      format: 'the input format read',
      lines: 'lines read (= record_lines + ignored + rejected)',
      record_lines: 'lines that gave records',
      records: 'records stored (a proxy or OTLP line may give several)',
      ignored: 'lines ignored (JSON with no known kind, or repeated)',
      repeated: 'of the ignored lines, those repeating an earlier line byte for byte',
      rejected: 'lines rejected (see rejected_lines)',
      complete: '0 while a followed file is still growing',
      ingested_at: 'when it was ingested, ISO time',
      path: 'the file\'s path, where lines are re-read from it',
      size: 'its size in bytes when read',
      mtime_ms: 'its modification time when read, epoch ms',
    },
  },
  rejected: {
    about: 'one row per rejected line (rejected_lines names the file)',
    columns: { id: 'row id', source_id: 'sources.id', line: 'line number', reason: 'why it was rejected', text: 'the line (first 4 KiB, redacted)' },
  },
  repeated: {
    about: 'one row per line that repeats an earlier line byte for byte (read once; repeated_lines names the files)',
    columns: { source_id: 'sources.id of the repeat', line: 'its line number', of_line: 'the earlier line', of_source_id: 'the earlier line\'s file (NULL: the same)' },
  },
  recent_lines: {
    about: 'internal: the lines the next ingest may find repeated, oldest first',
    columns: { ord: 'order noted', key: 'hash of the line', source_id: 'sources.id', line: 'line number', ts_ms: 'its first record\'s time, epoch ms' },
  },
  records: { about: 'one row per normalized record, with its file and line: every kind, lnav style', columns: RECORD_COLUMNS },
  node_records: {
    about: 'internal: each node\'s records per source (see node_totals)',
    columns: { source_id: 'sources.id', node: 'the node (NULL: records that name none)', records: 'its records', last_ms: 'its last server record\'s time, epoch ms', last_id: 'that record (records.id)' },
  },
  dirty_sessions: { about: 'internal: sessions touched since the last derive', columns: { session: 'the session id' } },
  report_cache: {
    about: 'internal: the findings cache (README, "A tour"): the key of the report kept and its summary, at most one row',
    columns: { key: 'digest of what the report depends on: resumescope\'s code, the schema, the rules\' options, what the database holds', summary: 'the report\'s summary, JSON' },
  },
  report_cache_findings: {
    about: 'internal: the kept report\'s findings, valid while report_cache.key matches (a later ingest leaves them stale)',
    columns: {
      n: 'order the rules reported it in (the last tie-break of the report\'s order)',
      rule: 'the rule id',
      session: 'the session id (NULL: none)',
      at_ms: 'its time, epoch ms',
      message: 'what the report says of it',
      evidence: 'the records that prove it (records.id), a JSON array in the order shown',
      last_evidence: 'the last of them',
    },
  },
  report_cache_not_knowable: {
    about: 'internal: the kept report\'s not-knowables (a rule that could not be judged for a session, and why), in report order',
    columns: { pos: 'report order', rule: 'the rule id', session: 'the session id (NULL: none)', reason: 'why it could not be judged' },
  },
  incarnations: {
    about: 'sessions: one row per session.created (a session id reused is two rows)',
    columns: {
      session: 'the session id',
      created_id: 'the session.created record (records.id)',
      created_ts: 'when it was created, epoch ms',
      incarnation: 'its incarnation nonce, if logged',
      node: 'the node that created it',
      owner: 'the principal that created it',
      ended_id: 'the first session.terminated or session.evicted after it (records.id)',
      ended_ts: 'when it ended, epoch ms (NULL: never, in the log)',
      ended_how: 'terminated or evicted',
      log_evicted: 'evicted: 1 if its event log went with it',
    },
  },
  streams: {
    about: 'one row per SSE stream (one response body)',
    columns: {
      session: 'the session id',
      stream: 'the stream id',
      lane: 'its lineage, a chain of resumptions: named by its first stream, or by the sequence the server logs',
      via: 'get or post',
      opened_id: 'the stream.opened record (records.id)',
      opened_ts: 'when it opened, epoch ms',
      node: 'the node that served it',
      conn: 'its connection id',
      principal: 'who opened it',
      closed_id: 'the stream.closed record',
      closed_ts: 'when it closed, epoch ms',
      close_reason: 'why (client, server, error, fenced, half_open, poll)',
      fenced_id: 'the stream.fenced record',
      fenced_ts: 'when its writer was retired, epoch ms',
      superseded_id: 'the accepted upgrade that replaced it (records.id)',
      superseded_ts: 'when, epoch ms',
    },
  },
  events: {
    about: 'one row per emitted event: event.sent, and request.sent (a server request carried on a stream)',
    columns: {
      id: 'the event.sent or request.sent record (records.id)',
      session: 'the session id',
      stream: 'the stream it was sent on',
      lane: 'the stream\'s lineage (streams.lane)',
      event_id: 'the SSE event id (text)',
      ts_ms: 'when it was sent, epoch ms',
      lane_pos: 'its position in its lane, from 1: emission order',
      attached: '1 if written to an attached client',
      request_id: 'request.sent: the server request\'s id',
      method: 'its JSON-RPC method',
    },
  },
  requests: {
    about: 'one row per server-to-client request (sampling, elicitation, …), from sent to its first resolution',
    columns: REQUEST_COLUMNS,
  },
  upgrades: { about: 'view: the reconnect decisions (records of kind upgrade, proxy inferences a server record shadows dropped)', columns: 'records' },
  calls: { about: 'view: client-to-server calls (records of kind call, not shadowed)', columns: 'records' },
  http: { about: 'view: proxy access records (records of kind http)', columns: 'records' },
  evidence: {
    about: 'view: each record with its file name and line, to quote',
    columns: { id: 'records.id', file: 'sources.name', line: 'line number', ts_ms: 'its time, epoch ms', kind: 'record kind', session: 'the session id', raw: 'the (redacted) line, or NULL where re-read from the file' },
  },
  rejected_lines: {
    about: 'view: rejected lines with their file name (query rejected)',
    columns: { file: 'sources.name', line: 'line number', reason: 'why it was rejected', text: 'the line (first 4 KiB, redacted)' },
  },
  repeated_lines: {
    about: 'view: lines read once because they repeat an earlier one (query repeated)',
    columns: { file: 'the repeat\'s file', line: 'its line', of_file: 'the earlier line\'s file', of_line: 'the earlier line' },
  },
  request_lives: {
    about: 'temp view: requests, each with the record that ends its life',
    // requests' rows plus their end: the shared columns mean what they mean there.
    columns: {
      ...REQUEST_COLUMNS,
      end_ts: 'when its life ends (answer, cancel, re-issue, time-out or the session\'s next creation), epoch ms; NULL: never',
      end_id: 'the record that ends it',
    },
  },
  pending_at_upgrade: {
    about: 'temp view: each accepted resume or attach, with each server request pending at it',
    columns: {
      upgrade_id: 'the upgrade (records.id)',
      created_id: 'the session\'s incarnation then (incarnations.created_id)',
      session: 'the session id',
      sent_id: 'the pending request.sent record',
      sent_ts: 'when it was sent, epoch ms',
      request_id: 'the request id',
      method: 'its JSON-RPC method',
      stream: 'the stream it was sent on',
      event_id: 'the event that carried it',
    },
  },
  polling_closes: {
    about: 'temp view: the stream.closed records of reason poll that end the connection only (a revision with polling, or none logged)',
    columns: { closed_id: 'the stream.closed record (records.id)' },
  },
  stale_session_ids: {
    about: 'temp view: session ids only stateless-era (2026-07-28+) requests presented and no server answered with: stale headers, not sessions',
    columns: { session: 'the session id' },
  },
  node_totals: {
    about: 'temp view: one row per node over every source (query nodes)',
    columns: { node: 'the node (NULL: records that name none)', records: 'its records', last_ms: 'its last server record\'s time, epoch ms (NULL: a proxy)', last_id: 'that record (records.id)' },
  },
  initialize_mints: {
    about: 'temp view: the records of an initialize (a minting upgrade, a proxy line of method initialize): the version they log is the one asked for',
    columns: { id: 'the record (records.id)' },
  },
  session_versions: {
    about: 'temp view: each session\'s protocol version: its server session.created\'s where an earlier revision (before 2026-07-28), else the first earlier revision its other records log, else its mint\'s (a later revision only from a server session.created or a mint that is no initialize)',
    columns: { session: 'the session id', protocol_version: 'the MCP protocol revision' },
  },
};

/** A column's meaning, or undefined when none is written. */
export function columnDoc(table: string, column: string): string | undefined {
  const doc = SCHEMA_DOCS[table];
  if (doc === undefined) return undefined;
  const columns = doc.columns === 'records' ? RECORD_COLUMNS : doc.columns;
  return Object.hasOwn(columns, column) ? columns[column] : undefined;
}

export interface SchemaColumn {
  name: string;
  type: string;
  about: string | undefined;
}

export interface SchemaTable {
  name: string;
  type: 'table' | 'view';
  /** TEMP: made by each connection (store/views.ts), never written to a --db file. */
  temp: boolean;
  about: string | undefined;
  columns: SchemaColumn[];
}

/** The tables and views a query on `db` sees, with their columns as SQLite reports them and the meanings above. */
export function describeSchema(db: Db): SchemaTable[] {
  const objects = db
    .prepare(
      `SELECT name, type, 0 AS temp FROM main.sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
       UNION ALL SELECT name, type, 1 FROM temp.sqlite_master WHERE type IN ('table', 'view')`,
    )
    .all() as { name: string; type: 'table' | 'view'; temp: number }[];
  return objects.map((o) => ({
    name: o.name,
    type: o.type,
    temp: o.temp === 1,
    about: SCHEMA_DOCS[o.name]?.about,
    columns: (db.prepare(`SELECT name, type FROM pragma_table_info(?)`).all(o.name) as { name: string; type: string }[]).map((c) => ({
      name: c.name,
      type: c.type,
      about: columnDoc(o.name, c.name),
    })),
  }));
}
