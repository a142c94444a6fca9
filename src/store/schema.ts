// resumescope timeline schema. Bump SCHEMA_VERSION on any change and add its
// migration (MIGRATE_<from>_TO_<to>), which db.ts runs on a database's first write.
export const SCHEMA_VERSION = 8;

const NODE_RECORDS = `
-- Each node's share of a source, counted as its records are stored (source-sink.ts): the input's records
-- (summary.nodes: server records and proxy http records) and its last server record by time (lost-sessions.sql:
-- a node that logged nothing more), so that neither question reads every record again. node NULL: records
-- that name none.
CREATE TABLE IF NOT EXISTS node_records (
  source_id INTEGER NOT NULL REFERENCES sources(id), node TEXT, records INTEGER NOT NULL, last_ms INTEGER, last_id INTEGER
);
`;

const REPORT_CACHE = `
-- The findings cache (detect/report-cache.ts): the report of the last judgement of this database, so that a
-- later command on it with the same key (resumescope's code and version, the schema, the rules' options, what
-- the database holds) reads the findings instead of running every rule again. report_cache holds the key and
-- the summary, at most one row, written in the same transaction as the findings and after them; the findings'
-- evidence is record ids, resolved to file:line as the report is read. n and pos keep the report's order.
CREATE TABLE IF NOT EXISTS report_cache (key TEXT NOT NULL, summary TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS report_cache_findings (
  n INTEGER PRIMARY KEY, rule TEXT NOT NULL, session TEXT, at_ms INTEGER NOT NULL, message TEXT NOT NULL,
  evidence TEXT NOT NULL, last_evidence INTEGER
);
CREATE TABLE IF NOT EXISTS report_cache_not_knowable (pos INTEGER PRIMARY KEY, rule TEXT NOT NULL, session TEXT, reason TEXT NOT NULL);
`;

export const SCHEMA_SQL = `
-- resumescope timeline, schema version 8.
-- Raw layer: one row per normalized record, with provenance (source, line).
-- Derived layer (rebuilt per touched session by store/derive.ts): incarnations (the sessions:
-- there is no sessions table), streams, events, requests. Views give each record kind a table
-- of its own, lnav style. What each table and column holds, for users: schema-docs.ts
-- (query --schema); a column added here needs its line there (test/cli/query-schema.test.ts).

CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS sources (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,            -- as given on the command line; evidence cites it
  sha256 TEXT NOT NULL UNIQUE,   -- content hash: re-ingesting the same bytes adds nothing
  format TEXT,
  lines INTEGER NOT NULL DEFAULT 0,        -- = record_lines + ignored + rejected
  record_lines INTEGER NOT NULL DEFAULT 0,
  records INTEGER NOT NULL DEFAULT 0,      -- a proxy line may yield several records
  ignored INTEGER NOT NULL DEFAULT 0,
  repeated INTEGER NOT NULL DEFAULT 0,     -- of the ignored lines, those repeating an earlier one byte for byte
  rejected INTEGER NOT NULL DEFAULT 0,
  complete INTEGER NOT NULL DEFAULT 0, -- 0 while a followed file is still growing
  ingested_at TEXT NOT NULL,
  path TEXT, size INTEGER, mtime_ms INTEGER
);
-- sources.path, size, mtime_ms: set where lines are re-read from the file; quoting checks it is unchanged.

CREATE TABLE IF NOT EXISTS rejected (
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES sources(id),
  line INTEGER NOT NULL,
  reason TEXT NOT NULL,
  text TEXT                       -- the line (first 4 KiB)
);

-- Lines that repeat an earlier line byte for byte (a shipper's second delivery; an export's pages that overlap): read once.
CREATE TABLE IF NOT EXISTS repeated (
  source_id INTEGER NOT NULL REFERENCES sources(id),
  line INTEGER NOT NULL,
  of_line INTEGER NOT NULL,
  of_source_id INTEGER REFERENCES sources(id) -- the earlier line's file: the same, or one read before it
);
-- The lines the next run may find repeated (store/recent-lines.ts), oldest first: an export's next page ingested later.
CREATE TABLE IF NOT EXISTS recent_lines (
  ord INTEGER PRIMARY KEY, key INTEGER NOT NULL, source_id INTEGER NOT NULL REFERENCES sources(id), line INTEGER NOT NULL, ts_ms INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS records (
  id INTEGER PRIMARY KEY,         -- insertion order: ties in ts keep file order
  source_id INTEGER NOT NULL REFERENCES sources(id),
  line INTEGER NOT NULL,
  ts_ms INTEGER NOT NULL,
  kind TEXT NOT NULL,
  origin TEXT NOT NULL,           -- server | proxy (inferred from an http record)
  shadowed INTEGER NOT NULL DEFAULT 0, -- proxy inference superseded by a server record with the same req
  seq INTEGER, node TEXT, session TEXT, incarnation TEXT, stream TEXT, sequence TEXT,
  conn TEXT, principal TEXT, req TEXT,
  via TEXT, reason TEXT, aspect TEXT, log_evicted INTEGER,
  event_id TEXT, rpc_kind TEXT, rpc_id TEXT, method TEXT, attached INTEGER, of_stream TEXT, oldest_retained TEXT,
  last_event_id TEXT, new_stream TEXT, decision TEXT, status INTEGER,
  replayed INTEGER, reemitted INTEGER, cancelled INTEGER, first_replayed TEXT, replayed_ids TEXT,
  new_session TEXT, reset_signalled INTEGER,
  request_id TEXT, new_request_id TEXT,
  tool TEXT, args_hash TEXT, executed INTEGER,
  http_method TEXT, path TEXT, req_headers TEXT, resp_headers TEXT, sse_event_ids TEXT, duration_ms INTEGER, bytes INTEGER,
  extra TEXT,
  protocol_version TEXT, retry_ms INTEGER, priming INTEGER, -- log format version 2
  -- raw: the (redacted) log line, so evidence can be quoted from the database alone; NULL where the line
  -- is re-read from its file instead, at line_offset for line_bytes bytes, by store/line-text.ts. A line
  -- of several records (an OTLP export request, a proxy line) holds its text on the first one only.
  raw TEXT,
  line_offset INTEGER,
  line_bytes INTEGER
);
CREATE INDEX IF NOT EXISTS records_session ON records (session, ts_ms, id);
CREATE INDEX IF NOT EXISTS records_kind ON records (kind, ts_ms, id);
CREATE INDEX IF NOT EXISTS records_source_line ON records (source_id, line);
CREATE INDEX IF NOT EXISTS records_req ON records (req) WHERE req IS NOT NULL;
CREATE INDEX IF NOT EXISTS records_new_session ON records (new_session) WHERE new_session IS NOT NULL;
-- Few records carry a protocol version (a session's first, mostly): a session's version is one probe, not a scan of every record.
CREATE INDEX IF NOT EXISTS records_version ON records (session, ts_ms, id, protocol_version) WHERE protocol_version IS NOT NULL;

${NODE_RECORDS}
${REPORT_CACHE}
-- Sessions touched since the last derive (live mode re-evaluates only these).
CREATE TABLE IF NOT EXISTS dirty_sessions (session TEXT PRIMARY KEY);

-- Derived: one row per session.created (an incarnation); ended_* from the first end after it.
CREATE TABLE IF NOT EXISTS incarnations (
  session TEXT NOT NULL, created_id INTEGER NOT NULL PRIMARY KEY, created_ts INTEGER NOT NULL,
  incarnation TEXT, node TEXT, owner TEXT,
  ended_id INTEGER, ended_ts INTEGER, ended_how TEXT, log_evicted INTEGER
);
CREATE INDEX IF NOT EXISTS incarnations_session ON incarnations (session, created_ts);

-- Derived: one row per stream (an SSE response body).
CREATE TABLE IF NOT EXISTS streams (
  session TEXT NOT NULL, stream TEXT NOT NULL, lane TEXT NOT NULL, via TEXT,
  opened_id INTEGER, opened_ts INTEGER, node TEXT, conn TEXT, principal TEXT,
  closed_id INTEGER, closed_ts INTEGER, close_reason TEXT,
  fenced_id INTEGER, fenced_ts INTEGER,
  superseded_id INTEGER, superseded_ts INTEGER, -- the accepted upgrade that replaced it
  PRIMARY KEY (session, stream)
);

-- Derived: one row per emitted event, in emission order per lane and per session.
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY,         -- the record id of the event.sent / request.sent
  session TEXT NOT NULL, stream TEXT NOT NULL, lane TEXT NOT NULL, event_id TEXT NOT NULL,
  ts_ms INTEGER NOT NULL, lane_pos INTEGER NOT NULL, attached INTEGER,
  request_id TEXT, method TEXT
);
-- (session, event_id, ts_ms): "the latest emission of this id in the session before T" is one probe, even where
-- a server sends each id again on every stream of a long session
CREATE INDEX IF NOT EXISTS events_lookup ON events (session, event_id, ts_ms);
CREATE INDEX IF NOT EXISTS events_lane ON events (session, lane, lane_pos);
-- (event_id, ts_ms, id): "the latest emission of this id before T, in any session" is one probe, not a scan of every session that sent it
CREATE INDEX IF NOT EXISTS events_id ON events (event_id, ts_ms);

-- Derived: server-to-client requests, from sent to their first resolution.
CREATE TABLE IF NOT EXISTS requests (
  session TEXT NOT NULL, request_id TEXT NOT NULL, sent_id INTEGER NOT NULL PRIMARY KEY,
  sent_ts INTEGER NOT NULL, stream TEXT, method TEXT, event_id TEXT,
  answered_id INTEGER, answered_ts INTEGER,      -- first 2xx answer
  cancelled_id INTEGER, reissued_id INTEGER, timed_out_id INTEGER,
  resolved_ts INTEGER                            -- first of answered, cancelled, reissued
);
CREATE INDEX IF NOT EXISTS requests_session ON requests (session, request_id);

-- Views: the judged upgrades (proxy inference shadowed by a server record is dropped).
CREATE VIEW IF NOT EXISTS upgrades AS
  SELECT * FROM records WHERE kind = 'upgrade' AND shadowed = 0;
CREATE VIEW IF NOT EXISTS calls AS
  SELECT * FROM records WHERE kind = 'call' AND shadowed = 0;
CREATE VIEW IF NOT EXISTS http AS
  SELECT * FROM records WHERE kind = 'http';
CREATE VIEW IF NOT EXISTS evidence AS
  SELECT r.id, s.name AS file, r.line, r.ts_ms, r.kind, r.session, r.raw FROM records r JOIN sources s ON s.id = r.source_id;
CREATE VIEW IF NOT EXISTS rejected_lines AS
  SELECT s.name AS file, x.line, x.reason, x.text FROM rejected x JOIN sources s ON s.id = x.source_id ORDER BY s.id, x.line;
CREATE VIEW IF NOT EXISTS repeated_lines AS
  SELECT s.name AS file, x.line, o.name AS of_file, x.of_line FROM repeated x JOIN sources s ON s.id = x.source_id
  JOIN sources o ON o.id = coalesce(x.of_source_id, x.source_id) ORDER BY s.id, x.line;
`;

/** Schema 1 → 2: the log format version 2 fields (protocol_version, retry_ms, priming). */
export const MIGRATE_1_TO_2 = `
ALTER TABLE records ADD COLUMN protocol_version TEXT;
ALTER TABLE records ADD COLUMN retry_ms INTEGER;
ALTER TABLE records ADD COLUMN priming INTEGER;
UPDATE meta SET value = '2' WHERE key = 'schema_version';
`;

/**
 * Schema 2 → 3: the protocol-version index (session_versions reads it instead of every record), and
 * where a line is in its file (a v2 file keeps its lines' text, as a --db file does).
 */
export const MIGRATE_2_TO_3 = `
ALTER TABLE records ADD COLUMN line_offset INTEGER;
ALTER TABLE records ADD COLUMN line_bytes INTEGER;
ALTER TABLE sources ADD COLUMN path TEXT;
ALTER TABLE sources ADD COLUMN size INTEGER;
ALTER TABLE sources ADD COLUMN mtime_ms INTEGER;
CREATE INDEX IF NOT EXISTS records_version ON records (session, ts_ms, id, protocol_version) WHERE protocol_version IS NOT NULL;
UPDATE meta SET value = '3' WHERE key = 'schema_version';
`;

/** Schema 3 → 4: events_lookup ordered by time within an id, so that the latest emission before a reconnect is one probe. */
export const MIGRATE_3_TO_4 = `
DROP INDEX IF EXISTS events_lookup;
CREATE INDEX events_lookup ON events (session, event_id, ts_ms);
UPDATE meta SET value = '4' WHERE key = 'schema_version';
`;

/** Schema 4 → 5: lines that repeat an earlier line (normalize/repeated-lines.ts), counted and listed. */
export const MIGRATE_4_TO_5 = `
ALTER TABLE sources ADD COLUMN repeated INTEGER NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS repeated (source_id INTEGER NOT NULL REFERENCES sources(id), line INTEGER NOT NULL, of_line INTEGER NOT NULL);
CREATE VIEW IF NOT EXISTS repeated_lines AS
  SELECT s.name AS file, x.line, x.of_line FROM repeated x JOIN sources s ON s.id = x.source_id ORDER BY s.id, x.line;
UPDATE meta SET value = '5' WHERE key = 'schema_version';
`;

/** Schema 5 → 6: a repeated line's earlier line may be in another file, of the run or of an earlier one (an export's overlapping pages). */
export const MIGRATE_5_TO_6 = `
ALTER TABLE repeated ADD COLUMN of_source_id INTEGER REFERENCES sources(id);
CREATE TABLE IF NOT EXISTS recent_lines (
  ord INTEGER PRIMARY KEY, key INTEGER NOT NULL, source_id INTEGER NOT NULL REFERENCES sources(id), line INTEGER NOT NULL, ts_ms INTEGER NOT NULL
);
DROP VIEW IF EXISTS repeated_lines;
CREATE VIEW repeated_lines AS
  SELECT s.name AS file, x.line, o.name AS of_file, x.of_line FROM repeated x JOIN sources s ON s.id = x.source_id
  JOIN sources o ON o.id = coalesce(x.of_source_id, x.source_id) ORDER BY s.id, x.line;
UPDATE meta SET value = '6' WHERE key = 'schema_version';
`;

/** Schema 6 → 7: each node's records and last server record per source, counted from the records already stored. */
export const MIGRATE_6_TO_7 = `
${NODE_RECORDS}
INSERT INTO node_records (source_id, node, records, last_ms, last_id)
SELECT source_id, node, sum(origin = 'server' OR kind = 'http'),
  max(CASE WHEN origin = 'server' THEN ts_ms END),
  (SELECT r.id FROM records r WHERE r.source_id = g.source_id AND r.node IS g.node AND r.origin = 'server' ORDER BY r.ts_ms DESC, r.id DESC LIMIT 1)
FROM records g GROUP BY source_id, node;
UPDATE meta SET value = '7' WHERE key = 'schema_version';
`;

/** Schema 7 → 8: the findings cache (detect/report-cache.ts), empty until a command judges the database. */
export const MIGRATE_7_TO_8 = `
${REPORT_CACHE}
UPDATE meta SET value = '8' WHERE key = 'schema_version';
`;
