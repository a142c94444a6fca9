import { BoundedMap } from '../model/bounded-map.js';
import { printable } from '../model/printable.js';
import { isoTime } from '../model/phrasing.js';
import { BATCH_LINE_RECORDS, type LineRef } from '../model/record.js';
import type { Db } from '../store/db.js';

// Evidence as a person scans it: one short line per log line, built from the
// stored record columns (so an nginx line and a server line read alike),
// with the raw line kept for --raw and explain.

/** The stored columns of a record that a summary reads (a row of `records`). */
export interface SummaryRecord {
  kind: string;
  ts_ms: number;
  origin?: string | null;
  session?: string | null;
  stream?: string | null;
  node?: string | null;
  principal?: string | null;
  via?: string | null;
  reason?: string | null;
  aspect?: string | null;
  log_evicted?: number | null;
  event_id?: string | null;
  rpc_kind?: string | null;
  rpc_id?: string | null;
  method?: string | null;
  attached?: number | null;
  priming?: number | null;
  of_stream?: string | null;
  oldest_retained?: string | null;
  last_event_id?: string | null;
  new_stream?: string | null;
  decision?: string | null;
  status?: number | null;
  replayed?: number | null;
  reemitted?: number | null;
  cancelled?: number | null;
  first_replayed?: string | null;
  new_session?: string | null;
  reset_signalled?: number | null;
  request_id?: string | null;
  new_request_id?: string | null;
  tool?: string | null;
  executed?: number | null;
  http_method?: string | null;
  path?: string | null;
  retry_ms?: number | null;
}

/**
 * The records one log line became, in log order (a proxy or OTLP line may hold several). A line of
 * many (an OTLP export request of thousands) lists its first few, and counts the rest by kind.
 */
export interface LineOfRecords {
  records: readonly SummaryRecord[];
  /** Records past those listed, counted by kind in the order each kind first appears. */
  more?: ReadonlyMap<string, number>;
}

/** The records of a log line, for its summary; undefined when unknown. */
export type LineRecords = (ref: LineRef) => LineOfRecords | undefined;

export interface SummaryContext {
  /** The finding's session: said once in its heading, so left out of its evidence. */
  session?: string | null;
  /** The finding's time (RFC 3339): evidence of the same day shows the time of day only. */
  at?: string;
  /** A log of several nodes: a summary cut short loses its other fields before its node=. */
  keepNode?: boolean;
}

/** How long a summary may be (the record's time included): `file:line` goes in front of it. */
export const SUMMARY_MAX = 90;
/** Longer ids (sessions, UUID event ids) are cut: the raw line (--raw) has them whole. */
const VALUE_MAX = 28;

/** One log line in a few words: its time, its record kind and the fields that matter. */
export function summarizeLine({ records, more }: LineOfRecords, ctx: SummaryContext = {}): string {
  if (records.length === 0) return '';
  // A proxy line is an http record; what it was read as (an upgrade, a creation) follows it.
  const http = records.find((r) => r.kind === 'http');
  const main = http ?? records[0]!;
  const others = records.filter((r) => r !== main);
  const head = `${timeOf(main.ts_ms, ctx.at)} ${summarizeRecord(main, ctx, false)}`;
  const node = main.node !== null && main.node !== undefined && main.node !== '' ? ` node=${shown(main.node)}` : '';
  let tail = '';
  if (http && others.length > 0) tail = ` → ${others.map(readAs).join(', ')}${more ? `, ${kinds([], more)}` : ''}`;
  else if (others.length > 0 || more) tail = ` (+ ${kinds(others, more)})`;
  const whole = head + node + tail;
  if (whole.length <= SUMMARY_MAX || node === '' || ctx.keepNode !== true) return cutAtWord(whole, SUMMARY_MAX);
  // Across nodes the node is the fact a reader needs most (which one took over): a long line loses other fields first.
  return cutAtWord(head + tail, SUMMARY_MAX - node.length) + node;
}

/** A record's kind and its telling fields, without the time: `upgrade resume 200 from 1000 U1→U3 replayed=4`. */
export function summarizeRecord(r: SummaryRecord, ctx: SummaryContext = {}, withNode = true): string {
  const parts: string[] = [r.kind];
  const add = (label: string, v: unknown) => {
    if (v !== null && v !== undefined && v !== '') parts.push(label === '' ? shown(v) : `${label}${label.endsWith(' ') ? '' : '='}${shown(v)}`);
  };
  if (r.session !== ctx.session && r.session !== undefined) add('session', r.session ?? 'none');
  switch (r.kind) {
    case 'upgrade': {
      add('', r.decision);
      add('', r.status);
      add('from ', r.last_event_id ?? 'none');
      const into = r.new_stream ?? (r.new_session ? `session ${r.new_session}` : undefined);
      if (r.stream || into) parts.push(`${r.stream ? shown(r.stream) : ''}→${into ? shown(into) : '∅'}`);
      add('replayed', r.replayed);
      add('reemitted', r.reemitted);
      add('cancelled', r.cancelled);
      add('first', r.first_replayed);
      if (r.reset_signalled) parts.push('reset-signalled');
      add('', r.reason);
      break;
    }
    case 'event.sent':
    case 'event.replayed':
      add('', r.event_id);
      add('on ', r.stream);
      add('of ', r.of_stream);
      add('', r.method ?? r.rpc_kind);
      if (r.attached === 0) parts.push('unattached');
      if (r.priming) parts.push('priming');
      break;
    case 'request.sent':
    case 'request.answered':
    case 'request.cancelled':
    case 'request.reissued':
    case 'request.timed_out':
      add('', r.request_id);
      add('as ', r.new_request_id);
      add('', r.method);
      add('', r.status);
      add('on ', r.stream);
      add('event ', r.event_id);
      add('', r.reason);
      break;
    case 'call':
      add('', r.method);
      add('', r.tool);
      add('id ', r.rpc_id);
      add('', r.status);
      if (r.executed === 0) parts.push('not-executed');
      break;
    case 'http':
      add('', r.http_method);
      add('', r.path);
      add('', r.status);
      add('', r.method);
      break;
    case 'buffer.trimmed':
      add('', r.stream);
      add('oldest-retained', r.oldest_retained);
      break;
    default:
      // Session and stream lifecycle.
      add('', r.stream);
      add('via ', r.via);
      add('', r.aspect);
      add('', r.reason);
      add('retry ', r.retry_ms === null || r.retry_ms === undefined ? undefined : `${r.retry_ms}ms`);
      if (r.log_evicted === 0) parts.push('log-kept');
      add('principal', r.principal);
  }
  if (withNode) add('node', r.node);
  return parts.join(' ');
}

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

/** What a proxy line was read as: the record's kind, and for an upgrade its decision and Last-Event-ID. */
function readAs(r: SummaryRecord): string {
  if (r.kind !== 'upgrade') return r.kind;
  return `upgrade ${shown(r.decision ?? '?')}${r.last_event_id ? ` from ${shown(r.last_event_id)}` : ''}`;
}

function kinds(records: readonly SummaryRecord[], more?: ReadonlyMap<string, number>): string {
  const counts = new Map<string, number>();
  for (const r of records) counts.set(r.kind, (counts.get(r.kind) ?? 0) + 1);
  for (const [k, n] of more ?? []) counts.set(k, (counts.get(k) ?? 0) + n);
  return [...counts].map(([k, n]) => (n === 1 ? k : `${k}×${n}`)).join(', ');
}

/** The time of day when the finding is of the same day; the whole time otherwise. */
function timeOf(tsMs: number, at: string | undefined): string {
  const iso = isoTime(tsMs);
  return at !== undefined && at.slice(0, 10) === iso.slice(0, 10) ? iso.slice(11, 23) : iso;
}

/** A log value as it may be shown on a terminal: control and bidi characters escaped, long ids cut. */
function shown(v: unknown): string {
  return cut(printable(String(v)), VALUE_MAX);
}


/** Whole fields only: a summary too long loses its last fields, not half of one. */
function cutAtWord(s: string, max: number): string {
  if (s.length <= max) return s;
  const space = s.lastIndexOf(' ', max - 2);
  return space > 0 ? `${s.slice(0, space)} …` : cut(s, max);
}

function cut(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
