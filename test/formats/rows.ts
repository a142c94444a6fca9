import { loadWorkspace } from '../../src/api.js';
import { logSource, type LogLine } from '../helpers/logs.js';

// Reads back what a log became, from the store the whole pipeline wrote.

export interface Row {
  line: number;
  ts_ms: number;
  kind: string;
  origin: string;
  node: string | null;
  session: string | null;
  conn: string | null;
  principal: string | null;
  req: string | null;
  http_method: string | null;
  path: string | null;
  status: number | null;
  decision: string | null;
  last_event_id: string | null;
  new_session: string | null;
  request_id: string | null;
  rpc_id: string | null;
  rpc_kind: string | null;
  method: string | null;
  stream: string | null;
  event_id: string | null;
  duration_ms: number | null;
  bytes: number | null;
  req_headers: Record<string, string> | null;
  resp_headers: Record<string, string> | null;
}

export interface Loaded {
  rows: Row[];
  stats: { lines: number; recordLines: number; records: number; ignored: number; rejected: number; format?: string; readError?: string };
  rejected: { line: number; reason: string }[];
}

const COLUMNS =
  'line, ts_ms, kind, origin, node, session, conn, principal, req, http_method, path, status, decision, last_event_id, new_session, ' +
  'request_id, rpc_id, rpc_kind, method, stream, event_id, duration_ms, bytes, req_headers, resp_headers';

export async function load(lines: LogLine[], opts: { inputFormat?: string; name?: string; jsonArray?: boolean; csv?: boolean } = {}): Promise<Loaded> {
  const ws = await loadWorkspace([logSource(lines, opts.name ?? 'edge.ndjson')], opts);
  try {
    const raw = ws.db.prepare(`SELECT ${COLUMNS} FROM records ORDER BY ts_ms, id`).all() as Record<string, unknown>[];
    const rows = raw.map((r) => ({
      ...r,
      req_headers: r.req_headers === null ? null : JSON.parse(r.req_headers as string),
      resp_headers: r.resp_headers === null ? null : JSON.parse(r.resp_headers as string),
    })) as Row[];
    const rejected = ws.db.prepare('SELECT line, reason FROM rejected_lines').all() as { line: number; reason: string }[];
    return { rows, stats: ws.sources[0]!, rejected };
  } finally {
    ws.db.close();
  }
}

export const ofKind = (rows: Row[], kind: string) => rows.filter((r) => r.kind === kind);
export const iso = (ms: number) => new Date(ms).toISOString();
