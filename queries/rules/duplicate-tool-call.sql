-- Which tools/call requests were executed twice for one client?
-- Executed: executed = 1, or not logged and a 2xx status (executed = 0 was deduplicated by the server).
-- Twice: the same rpc_id again in the same session (for the same tool and arguments, where logged), or the same tool and args_hash again by the same principal
-- within :duplicate_call_window_ms (default 60000) where in between a POST of that principal got 404, or the first
-- execution's session ended or was replaced by a fresh upgrade presenting it, and the later execution was made in a
-- session begun since (a call in one already running is another client's), or the principal left it for a new session
-- (the first one created for that principal after the session's last client request: a session the client goes on
-- using, as a principal running several at once does, was not left) and the later execution was made in that one
-- (a session lost or left is retried once: by the first such later execution),
-- or the first execution's response stream closed before its response was delivered (a broken stream: since 2026-07-28
-- the client re-issues the call under a new id, so the tool-and-arguments clause covers calls without a session too).
-- Its response stream: the call's own `stream`, else the stream its response was written to, else the POST stream opened
-- for it (same req or conn, within a second). Delivered: a response to it written, not for replay only, before the close.
-- A resumption of that stream's lineage accepted after the close, before the later execution, went after the response
-- instead: the later one is then no retry of the broken stream.
-- The row names the session of the later execution. Evidence: first execution, what happened between, the later one,
-- and the proxy's one line of the request where it shows the proxy, not the client, sent it again.
-- A call a proxy saw that the server logged too is shadowed (derive), with or without `req`.
-- Staged (store/queries.ts, queryParts): the executions, the keyed ones, what happens between them and the
-- activations grow with the log. As MATERIALIZED CTEs each was an ephemeral b-tree on SQLite's compiled
-- 16 MB page cache (~180 MB at 3M lines); as TEMP tables they live on the run's page budget.
CREATE TEMP TABLE executions AS
SELECT c.id, c.ts_ms, c.session, c.origin, c.rpc_id, c.tool, c.args_hash, c.principal AS own_principal, c.stream, c.req, c.conn, c.node,
  (SELECT i.created_id FROM incarnations i
   WHERE i.session = c.session AND (i.created_ts, i.created_id) < (c.ts_ms, c.id)
   ORDER BY i.created_ts DESC, i.created_id DESC LIMIT 1) AS created_id
FROM calls c
WHERE c.method = 'tools/call' AND COALESCE(c.executed, c.status BETWEEN 200 AND 299) = 1;

-- the POSTs that got 404, each with the session it named
CREATE TEMP TABLE not_found AS
SELECT x.id, x.ts_ms, x.principal, COALESCE(x.session, json_extract(x.req_headers, '$."mcp-session-id"')) AS session
FROM records x
WHERE x.shadowed = 0 AND x.status = 404 AND (
  (x.kind = 'http' AND upper(x.http_method) = 'POST')
  OR (x.origin = 'server' AND x.kind IN ('call', 'request.answered')));

-- the first principal each session logged, for the executions and 404s that name none, their session's creation
-- neither: looked up per row, a session that never logs one was read whole for each of its calls
CREATE TEMP TABLE first_principals AS
SELECT d.session, (SELECT r.principal FROM records r WHERE r.session = d.session AND r.principal IS NOT NULL AND r.shadowed = 0
  ORDER BY r.ts_ms, r.id LIMIT 1) AS principal
FROM (
  SELECT e.session FROM executions e LEFT JOIN incarnations i ON i.created_id = e.created_id
  WHERE e.own_principal IS NULL AND i.owner IS NULL
  UNION
  SELECT session FROM not_found WHERE principal IS NULL) d
WHERE d.session IS NOT NULL;
CREATE INDEX temp.first_principals_session ON first_principals (session);

-- whose call: its own principal, else the owner of its session
CREATE TEMP TABLE attributed AS
SELECT e.*, COALESCE(e.own_principal, i.owner, f.principal) AS principal
FROM executions e LEFT JOIN incarnations i ON i.created_id = e.created_id
LEFT JOIN first_principals f ON f.session = e.session;
CREATE INDEX temp.attributed_id ON attributed (id);
CREATE INDEX temp.attributed_rpc ON attributed (session, rpc_id);

-- the executions of an rpc id its session executed more than once, and of those the first of each (tool,
-- arguments) in one incarnation. A stale header is no session (the stale_session_ids view: an id only
-- stateless-era requests presented and no server answered with): the calls that name one have none (the view is
-- read once).
CREATE TEMP TABLE reused AS
SELECT a.id, a.ts_ms, a.session, a.rpc_id, a.created_id, a.tool, a.args_hash FROM attributed a
WHERE a.session IS NOT NULL AND a.rpc_id IS NOT NULL
  AND EXISTS (SELECT 1 FROM attributed o WHERE o.session = a.session AND o.rpc_id = a.rpc_id AND o.id <> a.id)
  AND a.session NOT IN (SELECT session FROM stale_session_ids);
CREATE TEMP TABLE first_calls AS
SELECT id, ts_ms, session, rpc_id, created_id, tool, args_hash FROM (
  SELECT id, ts_ms, session, rpc_id, created_id, tool, args_hash,
    row_number() OVER (PARTITION BY session, rpc_id, created_id, tool, args_hash ORDER BY ts_ms, id) AS k
  FROM reused)
WHERE k = 1;
CREATE INDEX temp.first_calls_key ON first_calls (session, rpc_id, created_id, tool, args_hash);

CREATE TEMP TABLE keyed AS
-- the executions a retry can be recognised by: principal, tool and arguments known
SELECT id, ts_ms, session, principal, tool, args_hash, rpc_id, stream, req, conn, node,
  row_number() OVER (PARTITION BY principal, tool, args_hash ORDER BY ts_ms, id) AS r,
  count(*) OVER (PARTITION BY principal, tool, args_hash) AS group_size
FROM attributed WHERE principal IS NOT NULL AND tool IS NOT NULL AND args_hash IS NOT NULL;
CREATE INDEX temp.keyed_id ON keyed (id);
CREATE INDEX temp.keyed_group ON keyed (principal, tool, args_hash, r);

-- the sessions a principal left for a new one: the first session created for that principal after the session's
-- last client request (a call, a reconnect, an answer to a server request)
CREATE TEMP TABLE owner_creations AS
SELECT owner, created_ts, created_id FROM incarnations WHERE owner IS NOT NULL;
CREATE INDEX temp.owner_creations_at ON owner_creations (owner, created_ts, created_id);
CREATE TEMP TABLE left_sessions AS
SELECT l.session, o.created_ts, o.created_id FROM (
  SELECT k.session, k.principal,
    (SELECT r.id FROM records r WHERE r.session = k.session AND r.shadowed = 0 AND +r.kind IN ('call', 'upgrade', 'request.answered')
     ORDER BY r.ts_ms DESC, r.id DESC LIMIT 1) AS last_id
  FROM (SELECT DISTINCT session, principal FROM keyed WHERE session IS NOT NULL) k) l
JOIN records q ON q.id = l.last_id
JOIN owner_creations o ON o.created_id = (
  SELECT c.created_id FROM owner_creations c WHERE c.owner = l.principal AND (c.created_ts, c.created_id) > (q.ts_ms, q.id)
  ORDER BY c.created_ts, c.created_id LIMIT 1);

CREATE TEMP TABLE marker_stream AS
WITH not_found_by AS MATERIALIZED (
  SELECT x.id, x.ts_ms, COALESCE(x.principal, (SELECT f.principal FROM first_principals f WHERE f.session = x.session)) AS principal
  FROM not_found x
)
-- what happens between two executions, merged with the executions in log order, in two scopes:
-- 'principal' (a POST of it got 404) and 'session' (the execution's session ended, a fresh upgrade
-- replaced it, or its principal left it for a new session: the client lost or left that session, so its
-- retry is made in one created since)
SELECT scope, key, ts_ms, id, how, a_id, row_number() OVER (PARTITION BY scope, key ORDER BY ts_ms, id) AS n FROM (
  SELECT 'principal' AS scope, principal AS key, ts_ms, id, '404' AS how, NULL AS a_id FROM not_found_by WHERE principal IS NOT NULL
  UNION ALL SELECT 'principal', principal, ts_ms, id, NULL, id FROM keyed
  UNION ALL SELECT 'session', session, created_ts, created_id, 'new-session', NULL FROM left_sessions
  UNION ALL SELECT 'session', x.session, x.ts_ms, x.id, CASE x.kind WHEN 'upgrade' THEN 'replaced' ELSE 'ended' END, NULL FROM records x
  WHERE x.session IS NOT NULL AND x.shadowed = 0
    AND (x.kind IN ('session.terminated', 'session.evicted') OR (x.kind = 'upgrade' AND x.decision = 'fresh' AND x.status BETWEEN 200 AND 299))
  UNION ALL SELECT 'session', session, ts_ms, id, NULL, id FROM keyed);
CREATE INDEX temp.marker_stream_key ON marker_stream (scope, key, n);

-- responses and stream closes, looked up by what they answer and close: walking a session's records in the
-- window per execution cost the session's density, 8 ms an execution where a session logged 50 records a second
CREATE TEMP TABLE responses AS
SELECT id, ts_ms, session, stream, rpc_id, COALESCE(attached, 1) AS attached FROM records
WHERE kind = 'event.sent' AND rpc_kind = 'response' AND rpc_id IS NOT NULL AND shadowed = 0;
CREATE INDEX temp.responses_rpc ON responses (session, rpc_id, ts_ms, id);
CREATE TEMP TABLE closes AS
SELECT id, ts_ms, session, stream FROM records WHERE kind = 'stream.closed' AND shadowed = 0;
CREATE INDEX temp.closes_stream ON closes (session, stream, ts_ms, id);

-- the POST streams opened, looked up by the request or connection that opened them: looked up among a session's
-- records of the second around a call, a session the whole log long (one id for every client) cost the log's rate
CREATE TEMP TABLE post_opens AS
SELECT id, session, ts_ms, stream, req, conn, node FROM records WHERE kind = 'stream.opened' AND via = 'post' AND shadowed = 0;
CREATE INDEX temp.post_opens_req ON post_opens (session, req, ts_ms) WHERE req IS NOT NULL;
CREATE INDEX temp.post_opens_conn ON post_opens (session, conn, ts_ms) WHERE conn IS NOT NULL;
CREATE INDEX temp.post_opens_at ON post_opens (session, ts_ms, id);
CREATE INDEX temp.post_opens_stream ON post_opens (session, stream);
CREATE INDEX temp.post_opens_id ON post_opens (id);

-- A call that logs neither req nor conn names no POST stream: its own is the one its node opens next to it, with no
-- other call of the session in between, on the side the node opens its streams. Which side, the node's answered calls
-- show (their response names the stream): a node that logs the call first opens the stream after it.
CREATE TEMP TABLE session_calls AS
SELECT id, ts_ms, session FROM calls WHERE session IS NOT NULL;
CREATE INDEX temp.session_calls_at ON session_calls (session, ts_ms, id);
CREATE TEMP TABLE open_sides AS
SELECT node, sum(after) >= sum(1 - after) AS opens_after FROM (
  SELECT a.node, (o.ts_ms, o.id) > (a.ts_ms, a.id) AS after FROM (
    SELECT c.id, c.ts_ms, c.session, c.node, (
      SELECT y.stream FROM responses y WHERE y.session = c.session AND y.rpc_id = c.rpc_id
        AND y.ts_ms BETWEEN c.ts_ms - 1000 AND c.ts_ms + :duplicate_call_window_ms
      ORDER BY y.ts_ms, y.id LIMIT 1) AS stream
    FROM calls c WHERE c.session IS NOT NULL AND c.req IS NULL AND c.conn IS NULL AND c.rpc_id IS NOT NULL) a
  JOIN post_opens o ON o.session = a.session AND o.stream = a.stream)
GROUP BY node;
CREATE INDEX temp.open_sides_node ON open_sides (node);

CREATE TEMP TABLE activated AS
WITH marker_next AS (
  -- per execution and scope: the position of the first marker after it
  SELECT a_id, scope, key, next_n FROM (
    SELECT a_id, scope, key,
      min(CASE WHEN how IS NOT NULL THEN n END) OVER (PARTITION BY scope, key ORDER BY ts_ms, id GROUPS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS next_n
    FROM marker_stream)
  WHERE a_id IS NOT NULL AND next_n IS NOT NULL
), response_streams AS MATERIALIZED (
  -- the response stream of each execution that has an identical one (only those can be retried)
  SELECT k.id AS a_id, k.ts_ms, k.session, k.rpc_id, COALESCE(k.stream,
    (SELECT x.stream FROM responses x
     WHERE x.session IS k.session AND x.rpc_id = k.rpc_id AND x.ts_ms BETWEEN k.ts_ms AND k.ts_ms + :duplicate_call_window_ms
       AND (x.ts_ms, x.id) > (k.ts_ms, k.id)
     ORDER BY x.ts_ms, x.id LIMIT 1),
    -- (SQLite takes no outer column in such an ORDER BY: the latest one opened up to the call, else the first one after it)
    (SELECT stream FROM (
       SELECT x.stream, x.ts_ms, x.id FROM post_opens x WHERE x.session IS k.session AND x.req = k.req AND x.ts_ms BETWEEN k.ts_ms - 1000 AND k.ts_ms
       UNION ALL
       SELECT x.stream, x.ts_ms, x.id FROM post_opens x WHERE x.session IS k.session AND x.conn = k.conn AND x.ts_ms BETWEEN k.ts_ms - 1000 AND k.ts_ms)
     ORDER BY ts_ms DESC, id DESC LIMIT 1),
    (SELECT stream FROM (
       SELECT x.stream, x.ts_ms, x.id FROM post_opens x WHERE x.session IS k.session AND x.req = k.req AND x.ts_ms BETWEEN k.ts_ms + 1 AND k.ts_ms + 1000
       UNION ALL
       SELECT x.stream, x.ts_ms, x.id FROM post_opens x WHERE x.session IS k.session AND x.conn = k.conn AND x.ts_ms BETWEEN k.ts_ms + 1 AND k.ts_ms + 1000)
     ORDER BY ts_ms, id LIMIT 1),
    CASE WHEN k.req IS NULL AND k.conn IS NULL AND k.session IS NOT NULL THEN
      -- INDEXED BY: with a row a node, the planner would scan the table per call
      CASE WHEN COALESCE((SELECT d.opens_after FROM open_sides d INDEXED BY open_sides_node WHERE d.node IS k.node), 1) THEN (
        SELECT x.stream FROM post_opens x
        WHERE x.id = (
            SELECT y.id FROM post_opens y
            WHERE y.session = k.session AND y.node IS k.node AND (y.ts_ms, y.id) > (k.ts_ms, k.id) AND y.ts_ms <= k.ts_ms + 1000
            ORDER BY y.ts_ms, y.id LIMIT 1)
          AND NOT EXISTS (SELECT 1 FROM session_calls c
            WHERE c.session = k.session AND (c.ts_ms, c.id) > (k.ts_ms, k.id) AND (c.ts_ms, c.id) < (x.ts_ms, x.id)))
      ELSE (
        SELECT x.stream FROM post_opens x
        WHERE x.id = (
            SELECT y.id FROM post_opens y
            WHERE y.session = k.session AND y.node IS k.node AND (y.ts_ms, y.id) < (k.ts_ms, k.id) AND y.ts_ms >= k.ts_ms - 1000
            ORDER BY y.ts_ms DESC, y.id DESC LIMIT 1)
          AND NOT EXISTS (SELECT 1 FROM session_calls c
            WHERE c.session = k.session AND (c.ts_ms, c.id) < (k.ts_ms, k.id) AND (c.ts_ms, c.id) > (x.ts_ms, x.id)))
      END
    END) AS stream
  FROM keyed k WHERE k.group_size > 1
), broken AS MATERIALIZED (
  -- its first close after the execution, within the window, before a response to it was delivered
  SELECT b.* FROM (
    SELECT r.a_id, r.session, r.stream, r.rpc_id, r.ts_ms,
      (SELECT x.id FROM closes x
       WHERE x.session IS r.session AND x.stream = r.stream AND x.ts_ms BETWEEN r.ts_ms AND r.ts_ms + :duplicate_call_window_ms
         AND (x.ts_ms, x.id) > (r.ts_ms, r.a_id)
       ORDER BY x.ts_ms, x.id LIMIT 1) AS close_id
    FROM response_streams r WHERE r.stream IS NOT NULL) b
  JOIN records c ON c.id = b.close_id
  WHERE NOT EXISTS (
    SELECT 1 FROM responses x
    WHERE x.session IS b.session AND x.rpc_id = b.rpc_id AND x.ts_ms BETWEEN b.ts_ms AND c.ts_ms
      AND (x.ts_ms, x.id) > (b.ts_ms, b.a_id) AND (x.ts_ms, x.id) < (c.ts_ms, c.id) AND x.attached = 1
      -- without a session, rpc ids are not one client's: only its own stream shows its response
      AND (b.session IS NOT NULL OR x.stream = b.stream))
), first_markers AS (
  -- per execution, the things after it that make a later identical one a retry: per scope the first, and its broken stream
  SELECT n.a_id, m.id, m.ts_ms, m.how, NULL AS broken_stream
  FROM marker_next n JOIN marker_stream m ON m.scope = n.scope AND m.key = n.key AND m.n = n.next_n AND m.how IS NOT NULL
  UNION ALL
  SELECT b.a_id, b.close_id, c.ts_ms, 'stream-broke', b.stream FROM broken b JOIN records c ON c.id = b.close_id
)
-- the first thing after an execution that makes a later identical one a retry, in three lanes. Lane 0 (a 404 of the
-- principal, a broken stream): every later one after it is. Lane 1 (the first session ended or was replaced): a later
-- one made in a session begun since. Lane 2 (the principal left the first session for a new one, `lane_session`): a
-- later one made in that new session. One lane's marker must not hide another's: a new session the principal opened
-- before a 404 still leaves the 404 to activate the execution for a call in a session already running.
SELECT k.principal, k.tool, k.args_hash, k.r, k.ts_ms AS first_ts, k.id AS first_id, k.session AS first_session,
  f.lane, CASE f.lane WHEN 2 THEN (SELECT i.session FROM incarnations i WHERE i.created_id = f.id) END AS lane_session,
  f.id AS between_id, f.ts_ms AS between_ts, f.how, f.broken_stream
FROM keyed k
JOIN (SELECT *, row_number() OVER (PARTITION BY a_id, lane ORDER BY ts_ms, id) AS first
      FROM (SELECT *, CASE how WHEN 'new-session' THEN 2 WHEN 'ended' THEN 1 WHEN 'replaced' THEN 1 ELSE 0 END AS lane
            FROM first_markers)) f ON f.a_id = k.id AND f.first = 1;
CREATE INDEX temp.activated_group ON activated (principal, tool, args_hash, lane, r);

WITH same_rpc AS MATERIALIZED (
  -- per execution, the earliest earlier one of the same call under its rpc id: the first execution of some
  -- (tool, arguments) of that rpc id (pairing every two executions of one rpc id cost a client that reuses
  -- one id its calls squared). One call: an rpc id a restarted client reuses for another tool or other
  -- arguments is another call; a tool or arguments not logged may be any.
  SELECT later_id, first_id, NULL AS between_id, 'same-rpc' AS how FROM (
    SELECT b.id AS later_id, CASE WHEN b.tool IS NOT NULL AND b.args_hash IS NOT NULL THEN (
      SELECT id FROM (
        SELECT a.id, a.ts_ms FROM first_calls a WHERE a.session = b.session AND a.rpc_id = b.rpc_id AND a.created_id IS b.created_id
          AND a.tool = b.tool AND a.args_hash = b.args_hash
        UNION ALL
        SELECT a.id, a.ts_ms FROM first_calls a WHERE a.session = b.session AND a.rpc_id = b.rpc_id AND a.created_id IS b.created_id
          AND a.tool = b.tool AND a.args_hash IS NULL
        UNION ALL
        SELECT a.id, a.ts_ms FROM first_calls a WHERE a.session = b.session AND a.rpc_id = b.rpc_id AND a.created_id IS b.created_id
          AND a.tool IS NULL AND a.args_hash = b.args_hash
        UNION ALL
        SELECT a.id, a.ts_ms FROM first_calls a WHERE a.session = b.session AND a.rpc_id = b.rpc_id AND a.created_id IS b.created_id
          AND a.tool IS NULL AND a.args_hash IS NULL)
      WHERE (ts_ms, id) < (b.ts_ms, b.id) ORDER BY ts_ms, id LIMIT 1)
    ELSE (
      SELECT a.id FROM first_calls a WHERE a.session = b.session AND a.rpc_id = b.rpc_id AND a.created_id IS b.created_id
        AND (a.tool IS NULL OR b.tool IS NULL OR a.tool = b.tool) AND (a.args_hash IS NULL OR b.args_hash IS NULL OR a.args_hash = b.args_hash)
        AND (a.ts_ms, a.id) < (b.ts_ms, b.id)
      ORDER BY a.ts_ms, a.id LIMIT 1) END AS first_id
    FROM reused b)
  WHERE first_id IS NOT NULL
), candidates AS MATERIALIZED (
  -- the calls that may be retries (not the same rpc id again, with an identical execution), and where each stands in
  -- lanes 1 and 2: when its session began (its incarnation's creation, else its first record; a call without a session
  -- begins its own)
  SELECT k.principal, k.tool, k.args_hash, k.session, k.ts_ms, k.id,
    COALESCE(i.created_ts, (SELECT r.ts_ms FROM records r WHERE r.session = k.session ORDER BY r.ts_ms, r.id LIMIT 1), k.ts_ms) AS began_ts,
    COALESCE(i.created_id, (SELECT r.id FROM records r WHERE r.session = k.session ORDER BY r.ts_ms, r.id LIMIT 1), k.id) AS began_id
  FROM keyed k JOIN attributed ba ON ba.id = k.id LEFT JOIN incarnations i ON i.created_id = ba.created_id
  WHERE k.group_size > 1 AND k.id NOT IN (SELECT later_id FROM same_rpc)
), sweep AS (
  -- per call and lane: the latest earlier execution activated before it (the nearest one with something between).
  -- Lanes 1 and 2 place the call where its session began: at or after the marker (hence the tiebreak) is begun
  -- since; lane 2 only among the executions left for the call's own session.
  SELECT b_id, lane, a_r FROM (
    SELECT b_id, lane, max(a_r) OVER (PARTITION BY principal, tool, args_hash, lane, lane_session ORDER BY ts_ms, id, tiebreak
      GROUPS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS a_r
    FROM (
      SELECT principal, tool, args_hash, lane, lane_session, between_ts AS ts_ms, between_id AS id, 0 AS tiebreak, r AS a_r, NULL AS b_id
      FROM activated
      UNION ALL
      SELECT principal, tool, args_hash, 0, NULL, ts_ms, id, 0, NULL, id FROM candidates
      UNION ALL
      SELECT principal, tool, args_hash, 1, NULL, began_ts, began_id, 1, NULL, id FROM candidates
      UNION ALL
      SELECT principal, tool, args_hash, 2, session, began_ts, began_id, 1, NULL, id FROM candidates WHERE session IS NOT NULL))
  WHERE b_id IS NOT NULL AND a_r IS NOT NULL
), lane_pairs AS (
  SELECT b.id AS later_id, s.lane, a.r, a.first_id, a.between_ts, a.between_id, a.how,
    row_number() OVER (PARTITION BY s.lane, a.first_id ORDER BY b.ts_ms, b.id) AS taker
  -- in this order (CROSS JOIN): from activated, the planner may walk a whole (principal, tool, args) group per row
  FROM sweep s
  CROSS JOIN keyed b ON b.id = s.b_id
  CROSS JOIN activated a ON a.principal = b.principal AND a.tool = b.tool AND a.args_hash = b.args_hash AND a.lane = s.lane AND a.r = s.a_r
  WHERE b.ts_ms - a.first_ts <= :duplicate_call_window_ms
    -- a client that had the first execution's response before it called again made no retry: an answer written to a live
    -- stream (attached) in the first session, to its rpc id and before any later call of that id there (a 404, the
    -- session's end or its replacement after a delivered answer leave nothing to retry; a broken stream is judged above)
    AND (a.how = 'stream-broke' OR a.first_session IS NULL OR NOT EXISTS (
      SELECT 1 FROM attributed ai
      CROSS JOIN responses x INDEXED BY responses_rpc ON x.session = ai.session AND x.rpc_id = ai.rpc_id AND x.ts_ms BETWEEN ai.ts_ms AND b.ts_ms
        AND (x.ts_ms, x.id) > (ai.ts_ms, ai.id) AND (x.ts_ms, x.id) < (b.ts_ms, b.id) AND x.attached = 1
      WHERE ai.id = a.first_id
        AND NOT EXISTS (SELECT 1 FROM attributed ac WHERE ac.session = ai.session AND ac.rpc_id = ai.rpc_id
          AND (ac.ts_ms, ac.id) > (ai.ts_ms, ai.id) AND (ac.ts_ms, ac.id) < (x.ts_ms, x.id))))
    -- a broken response stream the client resumed (its lineage, accepted) before the later execution: it went after the response
    AND (a.how IS NOT 'stream-broke' OR a.first_session IS NULL OR NOT EXISTS (
      SELECT 1 FROM records u
      LEFT JOIN streams us ON us.session = u.session AND us.stream = u.stream
      JOIN streams bs ON bs.session = a.first_session AND bs.stream = a.broken_stream
      WHERE u.session = a.first_session AND u.ts_ms BETWEEN a.between_ts AND b.ts_ms AND (u.ts_ms, u.id) > (a.between_ts, a.between_id)
        AND (u.ts_ms, u.id) < (b.ts_ms, b.id) AND +u.kind = 'upgrade' AND u.shadowed = 0 AND u.decision = 'resume' AND u.status BETWEEN 200 AND 299
        AND (us.lane = bs.lane
          OR EXISTS (SELECT 1 FROM events l WHERE l.session = u.session AND l.event_id = u.last_event_id AND l.lane = bs.lane))))
), lane_retries AS (
  -- A session the client lost or left is retried once, from the next one: of the later calls made in sessions begun
  -- since, the first is the retry (a service account's later jobs repeat its calls, each in a session of its own)
  SELECT later_id, first_id, between_id, how,
    row_number() OVER (PARTITION BY later_id ORDER BY r DESC, between_ts, between_id) AS pick
  FROM lane_pairs WHERE lane = 0 OR taker = 1
), retries AS (
  -- of the lanes' first executions that passed, the latest one (the same one in two: its earliest marker)
  SELECT later_id, first_id, between_id, how FROM lane_retries WHERE pick = 1
), found AS (
  SELECT later_id, first_id, between_id, how FROM same_rpc
  UNION ALL
  SELECT later_id, first_id, between_id, how FROM retries
)
SELECT b.session, b.ts_ms AS at_ms, f.how, b.tool, b.rpc_id, b.principal,
  a.session AS first_session, a.rpc_id AS first_rpc_id, a.ts_ms AS first_ms,
  -- a proxy sees a 2xx, not whether the server executed the call or answered a duplicate from its cache
  (a.origin = 'proxy' OR b.origin = 'proxy') AS proxy_seen,
  x.kind AS between_kind, x.status AS between_status, x.session AS between_session, x.ts_ms AS between_ms, x.stream AS between_stream,
  a.node AS first_node, b.node AS node,
  -- the revision the later call speaks (its own version, else its session's): the advice follows it
  coalesce(rb.protocol_version, (SELECT v.protocol_version FROM session_versions v WHERE v.session = b.session)) AS version,
  p.id AS proxy_id, p.node AS proxy_node, p.ts_ms AS proxy_ms, p.duration_ms AS proxy_duration_ms,
  -- (the first execution leads: the rule reads it there; the report sets the lines in log order)
  json_array(f.first_id, f.between_id, f.later_id, p.id) AS evidence
FROM (
  SELECT f.*,
    -- The one proxy line of this request, where the proxy logged the client sending it once while both executions ran
    -- (from its ts to ts + duration_ms, give or take a second, as a proxy line is paired with the server's records): the
    -- proxy retried it upstream, not the client. Two lines, or one that ended before the second execution: unknown.
    CASE WHEN f.how = 'same-rpc' THEN (
      SELECT CASE WHEN count(*) = 1 AND max(p.ts_ms) <= a.ts_ms + 1000
        AND max(p.ts_ms + coalesce(p.duration_ms, 0)) >= b.ts_ms - 1000 THEN max(p.id) END
      FROM records p
      WHERE p.session = b.session AND p.ts_ms BETWEEN a.ts_ms - :duplicate_call_window_ms AND b.ts_ms + 1000
        AND +p.kind = 'http' AND p.shadowed = 0 AND p.rpc_id = b.rpc_id AND upper(p.http_method) = 'POST')
    END AS proxy_id
  FROM found f
  JOIN attributed b ON b.id = f.later_id
  JOIN attributed a ON a.id = f.first_id) f
JOIN attributed b ON b.id = f.later_id
JOIN attributed a ON a.id = f.first_id
JOIN records rb ON rb.id = b.id
LEFT JOIN records x ON x.id = f.between_id
LEFT JOIN records p ON p.id = f.proxy_id
ORDER BY b.ts_ms, b.id;
