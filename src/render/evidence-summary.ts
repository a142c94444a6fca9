import type { LineOfRecords, SummaryRecord } from '../model/line-records.js';
import { printable } from '../model/printable.js';
import { isoTime } from '../model/phrasing.js';

// Evidence as a person scans it: one short line per log line, built from the
// stored record columns (so an nginx line and a server line read alike),
// with the raw line kept for --raw and explain. The records come from the
// store's read model (store/line-records.ts), passed in as a function.

export type { LineOfRecords, LineRecords, SummaryRecord } from '../model/line-records.js';

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
function summarizeRecord(r: SummaryRecord, ctx: SummaryContext = {}, withNode = true): string {
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
