import type { Severity } from '../../model/severity.js';
import type { SessionTimelineStream, TimelineRecord } from '../../store/session-timeline.js';
import { truncate } from '../common.js';
import { describeRecord, laneEnd, streamsByLineage } from '../timeline-text.js';
import { attr, text } from './escape.js';

// One session's timeline as SVG swimlanes. Time runs down, one row per
// record (order, not scale: a burst and an idle hour both stay readable);
// each stream is a lane, lanes of one lineage side by side, and a first lane
// for what belongs to the session rather than a stream. Each row says what
// the record means (the `timeline` command's words) and its file:line.

export interface Mark {
  severity: Severity;
  /** The findings (#N) this record is evidence of. */
  numbers: number[];
}

export type Row = { type: 'record'; record: TimelineRecord; mark: Mark | undefined } | { type: 'gap'; skipped: number };

const ROW = 18;
const TOP = 30;
const LANE = 24;
const TIME_X = 6;
const LANES_X = 100;
const DESC_CHARS = 96;
const CHAR_W = 6.7; // 11px monospace
const WHERE_CHARS = 34;

const REQUEST_END: Record<string, string> = {
  'request.answered': 'answered',
  'request.timed_out': 'timed_out',
  'request.cancelled': 'cancelled',
  'request.reissued': 'cancelled',
};

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** `key` makes the SVG's own ids unique in the page. */
export function swimlaneSvg(t: SessionTimelineStream, rows: Row[], label: string, key: string): string {
  const columns = laneColumns(t, rows);
  const laneX = (col: number) => LANES_X + col * LANE + LANE / 2;
  const y = (i: number) => TOP + i * ROW + ROW / 2;
  const descX = LANES_X + columns.length * LANE + 10;
  const whereX = descX + DESC_CHARS * CHAR_W + 12;
  const width = Math.ceil(whereX + (WHERE_CHARS + 14) * CHAR_W);
  const height = TOP + rows.length * ROW + 10;
  const colOf = (stream: string | null) => Math.max(0, stream === null ? 0 : columns.indexOf(stream));

  const bands: string[] = [];
  const lifelines: string[] = [];
  const spans: string[] = [];
  const marks: string[] = [];
  const labels: string[] = [];

  // Lane heads; the key under the drawing says which stream each is.
  columns.forEach((_, i) => {
    const name = i === 0 ? 'S' : laneLetter(i - 1);
    labels.push(`<text x="${laneX(i)}" y="${TOP - 10}" class="lane-head" text-anchor="middle">${text(name)}</text>`);
  });

  // Lifelines: from the stream's first row to its close or fence, dashed once superseded.
  const firstRow = new Map<string, number>();
  const endRow = new Map<string, number>();
  const supersededRow = new Map<string, number>();
  rows.forEach((row, i) => {
    if (row.type !== 'record') return;
    const r = row.record;
    for (const s of [str(r.stream), str(r.new_stream)]) if (s !== null && !firstRow.has(s)) firstRow.set(s, i);
    if ((r.kind === 'stream.closed' || r.kind === 'stream.fenced') && r.stream !== null && !endRow.has(r.stream)) endRow.set(r.stream, i);
  });
  const drawn = new Set(columns);
  for (const lane of t.lanes) {
    if (lane.superseded_ts === null || !drawn.has(lane.stream)) continue;
    const i = rows.findIndex((row) => row.type === 'record' && row.record.ts_ms >= lane.superseded_ts!);
    if (i >= 0) supersededRow.set(lane.stream, i);
  }
  columns.forEach((stream, col) => {
    if (col === 0) {
      lifelines.push(`<line x1="${laneX(0)}" y1="${TOP}" x2="${laneX(0)}" y2="${height - 10}" class="life session"/>`);
      return;
    }
    const from = firstRow.get(stream) ?? 0;
    const end = endRow.get(stream);
    const until = end ?? rows.length - 1;
    const sup = supersededRow.get(stream);
    const x = laneX(col);
    if (sup !== undefined && sup < until) {
      lifelines.push(`<line x1="${x}" y1="${y(from)}" x2="${x}" y2="${y(sup)}" class="life"/>`);
      lifelines.push(`<line x1="${x}" y1="${y(sup)}" x2="${x}" y2="${y(until)}" class="life zombie"><title>${text(`stream ${stream}: superseded, still registered`)}</title></line>`);
    } else {
      lifelines.push(`<line x1="${x}" y1="${y(from)}" x2="${x}" y2="${y(until)}" class="life${end === undefined && sup === undefined ? ' open' : ''}"/>`);
    }
  });

  // Requests from sent to their end, beside the lane of the stream that carried them.
  const open = new Map<string, { row: number; col: number; slot: number }>();
  let slot = 0;
  const closeSpan = (id: string, row: number, outcome: string) => {
    const o = open.get(id);
    if (o === undefined) return;
    open.delete(id);
    const x = laneX(o.col) + 5 + (o.slot % 3) * 3;
    spans.push(`<rect x="${x - 1}" y="${y(o.row)}" width="2.5" height="${Math.max(2, y(row) - y(o.row))}" class="req-${outcome}"><title>${text(`request ${id}: ${outcome.replace('_', ' ')}`)}</title></rect>`);
  };

  rows.forEach((row, i) => {
    const cy = y(i);
    if (row.type === 'gap') {
      labels.push(`<text x="${descX}" y="${cy + 4}" class="gap">${text(`⋯ ${row.skipped.toLocaleString('en-US')} records not drawn`)}</text>`);
      return;
    }
    const r = row.record;
    const stream = str(r.stream);
    const target = r.kind === 'upgrade' ? (str(r.new_stream) ?? stream) : stream;
    const requestId = str(r.request_id);
    // A request's answer has no stream: it is drawn on the lane of the stream that carried the request.
    const col = stream === null && requestId !== null && open.has(requestId) ? open.get(requestId)!.col : colOf(target);
    const x = laneX(col);
    if (row.mark !== undefined) bands.push(`<rect x="0" y="${cy - ROW / 2}" width="${width}" height="${ROW}" class="band sev-${row.mark.severity}"/>`);
    marks.push(glyph(r, x, cy, stream === null ? undefined : laneX(colOf(stream)), key));

    if (r.kind === 'request.sent' && requestId !== null) open.set(requestId, { row: i, col, slot: slot++ });
    else if (requestId !== null && REQUEST_END[r.kind] !== undefined) closeSpan(requestId, i, REQUEST_END[r.kind]!);
    if (r.kind === 'request.reissued' && str(r.new_request_id) !== null) open.set(str(r.new_request_id)!, { row: i, col, slot: slot++ });

    const desc = describeRecord(r);
    const shown = truncate(desc, DESC_CHARS);
    const where = truncateLeft(`${r.file}:${r.line}`, WHERE_CHARS);
    const refs = row.mark ? ` ${row.mark.numbers.slice(0, 3).map((n) => `#${n}`).join(' ')}${row.mark.numbers.length > 3 ? ' …' : ''}` : '';
    labels.push(
      `<text x="${TIME_X}" y="${cy + 4}" class="t">${text(new Date(r.ts_ms).toISOString().slice(11, 23))}</text>`,
      `<text x="${descX}" y="${cy + 4}" class="d k-${r.kind.replace(/[^a-z_]/g, '-')}">${text(shown)}${shown !== desc ? `<title>${text(desc)}</title>` : ''}</text>`,
      `<text x="${whereX}" y="${cy + 4}" class="w">${text(where)}${row.mark ? `<tspan class="refs">${text(refs)}</tspan>` : ''}</text>`,
    );
  });
  for (const id of open.keys()) closeSpan(id, rows.length - 1, 'pending');

  return `<svg class="swim" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label=${attr(label)}>
<defs><marker id="arrow-${key}" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L8 4L0 8Z" class="arrowhead"/></marker></defs>
<g class="bands">${bands.join('')}</g><g class="lifelines">${lifelines.join('')}</g><g class="spans">${spans.join('')}</g><g class="marks">${marks.join('')}</g><g class="labels">${labels.join('\n')}</g></svg>
${laneKey(t, columns)}`;
}

/**
 * The lanes in order: the session's own, then each lineage's streams as they opened, of the streams the
 * drawn rows name. A soak test's session opens tens of thousands of streams; a column for each (and a row
 * of the key under it) made the drawing of 160 rows as wide as the whole session.
 */
function laneColumns(t: SessionTimelineStream, rows: Row[]): string[] {
  const named: string[] = [];
  for (const row of rows) {
    if (row.type !== 'record') continue;
    for (const s of [str(row.record.stream), str(row.record.new_stream)]) if (s !== null) named.push(s);
  }
  const drawn = new Set(named);
  const lineages = [...streamsByLineage(t.lanes).values()].flatMap((members) => members.map((l) => l.stream).filter((s) => drawn.has(s)));
  return [...new Set(['', ...lineages, ...named])];
}

/** The mark of one record; its meaning is in the row's text, so marks carry no title of their own. */
function glyph(r: TimelineRecord, x: number, cy: number, fromX: number | undefined, key: string): string {
  switch (r.kind) {
    case 'event.sent':
      return `<circle cx="${x}" cy="${cy}" r="3.5" class="ev-sent"/>`;
    case 'event.replayed':
      return `<circle cx="${x}" cy="${cy}" r="3.5" class="ev-replayed"/>`;
    case 'upgrade': {
      const decision = ['resume', 'attach', 'fresh', 'reject'].includes(String(r.decision)) ? String(r.decision) : 'other';
      const arrow = fromX !== undefined && fromX !== x ? `<line x1="${fromX}" y1="${cy}" x2="${x + (fromX < x ? -7 : 7)}" y2="${cy}" class="handover" marker-end="url(#arrow-${key})"/>` : '';
      return `${arrow}<path d="M${x} ${cy - 6}L${x + 6} ${cy}L${x} ${cy + 6}L${x - 6} ${cy}Z" class="up-${decision}"/>`;
    }
    case 'stream.opened':
      return `<path d="M${x - 5} ${cy - 4}L${x + 5} ${cy - 4}L${x} ${cy + 4}Z" class="opened"/>`;
    case 'stream.closed':
      return `<rect x="${x - 4}" y="${cy - 4}" width="8" height="8" class="closed"/>`;
    case 'stream.fenced':
      return `<rect x="${x - 9}" y="${cy - 2}" width="18" height="4" class="fence"/>`;
    case 'session.created':
      return `<circle cx="${x}" cy="${cy}" r="5" class="created"/>`;
    case 'session.terminated':
    case 'session.evicted':
      return `<path d="M${x - 5} ${cy - 5}L${x + 5} ${cy + 5}M${x + 5} ${cy - 5}L${x - 5} ${cy + 5}" class="ended"/>`;
    case 'request.sent':
      return `<circle cx="${x}" cy="${cy}" r="4" class="req-sent"/>`;
    case 'buffer.trimmed':
      return `<path d="M${x - 6} ${cy}L${x + 6} ${cy}" class="trimmed"/>`;
    case 'request.answered':
    case 'request.timed_out':
    case 'request.cancelled':
    case 'request.reissued':
      return `<path d="M${x - 4} ${cy}L${x + 4} ${cy}" class="req-end req-${REQUEST_END[r.kind]}"/>`;
    default:
      return `<rect x="${x - 3}" y="${cy - 3}" width="6" height="6" class="other"/>`;
  }
}

/** Which stream each lane letter is, with how it opened and how it ended. */
function laneKey(t: SessionTimelineStream, columns: string[]): string {
  const info = new Map(t.lanes.map((l) => [l.stream, l]));
  const rows = columns.slice(1).map((stream, i) => {
    const l = info.get(stream);
    const state = l === undefined ? 'not opened in the log' : (laneEnd(l) ?? (l.superseded_ts !== null ? 'superseded, never closed' : 'open at the end of the log'));
    return `<tr><td class="lane-head">${laneLetter(i)}</td><td><code>${text(stream)}</code></td><td>${text(l?.via ?? '')}</td><td><code>${text(l?.lane ?? '')}</code></td><td>${text(state)}</td></tr>`;
  });
  const session = '<tr><td class="lane-head">S</td><td colspan="4">the session itself: records on no stream (creation, answers, calls)</td></tr>';
  return `<table class="lanes"><thead><tr><th>lane</th><th>stream</th><th>via</th><th>lineage</th><th>state</th></tr></thead><tbody>${session}${rows.join('')}</tbody></table>`;
}

function laneLetter(i: number): string {
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  return i < 26 ? letters[i]! : `${letters[Math.floor(i / 26) - 1] ?? 'Z'}${letters[i % 26]}`;
}

function truncateLeft(s: string, max: number): string {
  return s.length <= max ? s : `…${s.slice(s.length - max + 1)}`;
}
