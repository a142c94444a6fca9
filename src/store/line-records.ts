import { BoundedMap } from '../model/bounded-map.js';
import type { LineRecords, SummaryRecord } from '../model/line-records.js';
import { BATCH_LINE_RECORDS, type LineRef } from '../model/record.js';
import type { Db } from './db.js';

// The records of an evidence line, read for the reports' one-line summaries (render/evidence-summary.ts).
// Plumbing, not a question a user asks: its SQL stays here rather than in queries/.

/** A batch line's summary is the record cited, the rest counted by kind. */
const LISTED = BATCH_LINE_RECORDS;
/** Lines whose records are kept for the next quote: findings of one session cite the same lines. */
const REMEMBERED = 256;

const SUMMARY_COLUMNS = `r.id, r.kind, r.ts_ms, r.origin, r.session, r.stream, r.node, r.principal, r.via, r.reason, r.aspect,
  r.log_evicted, r.event_id, r.rpc_kind, r.rpc_id, r.method, r.attached, r.priming, r.of_stream, r.oldest_retained,
  r.last_event_id, r.new_stream, r.decision, r.status, r.replayed, r.reemitted, r.cancelled, r.first_replayed,
  r.new_session, r.reset_signalled, r.request_id, r.new_request_id, r.tool, r.executed, r.http_method, r.path, r.retry_ms`;

type StoredSummary = SummaryRecord & { id: number };

/** A line as the resolver remembers it: its first records, and for a batch every record counted by kind. */
interface LineSeen {
  first: readonly StoredSummary[];
  counts?: ReadonlyMap<string, number>;
}

/**
 * Reads the records of a log line from the store, for summaries. A line of a few records is listed
 * whole. A line of many (an OTLP export request of 8,192) shows the record the finding cites
 * (LineRef.record), or its first few, and counts the rest in SQL: reading every record of such a line
 * for each quote took the text report of 60k records in 3.4 MB lines 31 s (2.9 s as NDJSON).
 */
export function lineRecordsResolver(db: Db): LineRecords {
  const first = db.prepare(
    `SELECT ${SUMMARY_COLUMNS} FROM records r JOIN sources s ON s.id = r.source_id
     WHERE s.name = ? AND r.line = ? ORDER BY r.id LIMIT ${LISTED + 1}`,
  );
  const counts = db.prepare(
    `SELECT r.kind, count(*) FROM records r JOIN sources s ON s.id = r.source_id
     WHERE s.name = ? AND r.line = ? GROUP BY r.kind ORDER BY min(r.id)`,
  );
  const byId = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM records r WHERE r.id = ?`);
  const remembered = new BoundedMap<string, LineSeen | undefined>(REMEMBERED);
  const seen = (ref: LineRef): LineSeen | undefined => {
    const key = `${ref.line}\n${ref.file}`;
    if (remembered.has(key)) return remembered.get(key);
    const rows = first.all(ref.file, ref.line) as StoredSummary[];
    const line = rows.length === 0 ? undefined
      : rows.length <= LISTED ? { first: rows }
      : { first: rows.slice(0, LISTED), counts: new Map(counts.raw().all(ref.file, ref.line) as [string, number][]) };
    remembered.set(key, line);
    return line;
  };
  return (ref) => {
    const line = seen(ref);
    if (line?.counts === undefined) return line && { records: line.first };
    const cited = ref.record === undefined ? undefined : (byId.get(ref.record) as StoredSummary | undefined);
    const records = cited ? [cited] : line.first;
    return { records, more: without(line.counts, records) };
  };
}

/** `counts` less one of each record's kind, kinds counted down to none dropped. */
function without(counts: ReadonlyMap<string, number>, records: readonly SummaryRecord[]): Map<string, number> {
  const left = new Map(counts);
  for (const r of records) left.set(r.kind, (left.get(r.kind) ?? 0) - 1);
  for (const [k, n] of left) if (n <= 0) left.delete(k);
  return left;
}

