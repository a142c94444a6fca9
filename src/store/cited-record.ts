import { BoundedMap } from '../model/bounded-map.js';
import { isoTime } from '../model/phrasing.js';
import { BATCH_LINE_RECORDS, recordQuote } from '../model/record.js';
import type { Db } from './db.js';
import { RECORD_COLUMNS, type Param } from './insert.js';

// A line of many records (an OTLP export request: the collector writes 8,192 to a line, megabytes)
// is quoted by the record a finding cites, as stored, instead of whole: quoted whole once per
// citation, a SARIF report of 60k such records came to 55 GB. The quote says what it is, since the
// text is not in the file as such: `(record 12 of 8192 on this line, as read) {"ts":…,"kind":…}`.

/** Lines remembered: their count of records, or that they are not batches. */
const REMEMBERED = 256;

/** Quotes a cited record of a batch line; undefined where the line is not one (it is quoted whole). */
export function citedRecordQuoter(db: Db): (sourceId: number, line: number, record: number) => string | undefined {
  const firstOfLine = db.prepare(`SELECT count(*) FROM (SELECT 1 FROM records WHERE source_id = ? AND line = ? LIMIT ${BATCH_LINE_RECORDS + 1})`).pluck();
  const ofLine = db.prepare('SELECT count(*) FROM records WHERE source_id = ? AND line = ?').pluck();
  const upTo = db.prepare('SELECT count(*) FROM records WHERE source_id = ? AND line = ? AND id <= ?').pluck();
  const columns = RECORD_COLUMNS.map((c) => c.column);
  const byId = db.prepare(`SELECT ts_ms, ${columns.join(', ')} FROM records WHERE id = ?`).raw();
  const counts = new BoundedMap<string, number>(REMEMBERED);
  const recordsOf = (sourceId: number, line: number): number => {
    const key = `${sourceId}:${line}`;
    let n = counts.get(key);
    if (n === undefined) {
      n = firstOfLine.get(sourceId, line) as number;
      if (n > BATCH_LINE_RECORDS) n = ofLine.get(sourceId, line) as number;
      counts.set(key, n);
    }
    return n;
  };
  return (sourceId, line, record) => {
    const total = recordsOf(sourceId, line);
    if (total <= BATCH_LINE_RECORDS) return undefined;
    const row = byId.get(record) as Param[] | undefined;
    if (row === undefined) return undefined;
    const fields: Record<string, unknown> = { ts: isoTime(row[0] as number) };
    RECORD_COLUMNS.forEach(({ column, decode }, i) => {
      const v = row[i + 1];
      if (v !== null && v !== undefined && column !== 'ts_ms' && column !== 'origin') fields[column] = decode(v);
    });
    return recordQuote(upTo.get(sourceId, line, record) as number, total, fields);
  };
}
