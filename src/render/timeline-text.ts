import { isoTime } from '../model/phrasing.js';
import { printable } from '../model/printable.js';
import { CHUNK_CHARS } from './json.js';
import { ownerAt } from '../model/incarnation-owner.js';
import type { LaneInfo, SessionTimelineStream, TimelineRecord } from '../store/session-timeline.js';

// A session's story as text: incarnations, streams as lanes, then every record
// on one row with its lane marked and file:line, so a reader can go to the log.

const v = (x: unknown) => (x === null || x === undefined ? '∅' : String(x));

/** One line saying what a record means, in the words of the seeds. */
export function describeRecord(r: TimelineRecord): string {
  switch (r.kind) {
    case 'session.created':
      return `session created${r.incarnation ? ` (incarnation ${r.incarnation})` : ''}${r.principal ? ` for ${r.principal}` : ''}`;
    case 'session.state_changed':
      return `state changed: ${v(r.aspect)}`;
    case 'session.terminated':
      return `session terminated${r.reason ? ` (${r.reason})` : ''}`;
    case 'session.evicted':
      return `session evicted${r.reason ? ` (${r.reason})` : ''}${r.log_evicted === 0 ? ', event log kept' : ''}`;
    case 'stream.opened':
      return `stream ${v(r.stream)} opened via ${v(r.via)}${r.conn ? ` on ${r.conn}` : ''}`;
    case 'stream.closed':
      return `stream ${v(r.stream)} closed${r.reason ? ` (${r.reason})` : ''}`;
    case 'stream.fenced':
      return `stream ${v(r.stream)} fenced`;
    case 'event.sent':
      return `${r.priming === 1 ? 'priming ' : ''}event ${v(r.event_id)} sent on ${v(r.stream)}${carries(r)}${r.attached === 0 ? ' (unattached)' : ''}`;
    case 'event.replayed':
      return `event ${v(r.event_id)} replayed on ${v(r.stream)}${carries(r)}`;
    case 'buffer.trimmed':
      return `buffer trimmed${r.stream ? ` on ${r.stream}` : ''}: oldest retained ${v(r.oldest_retained)}`;
    case 'upgrade': {
      const counters = ['replayed', 'reemitted', 'cancelled']
        .filter((k) => r[k] !== null && r[k] !== undefined)
        .map((k) => `${k} ${r[k]}`)
        .join(', ');
      const into = r.new_stream ? ` → ${r.new_stream}` : r.new_session ? ` → new session ${r.new_session}` : '';
      return `UPGRADE (session ${v(r.session)}, last-event-id ${v(r.last_event_id)}, ${v(r.decision)}) ${v(r.status)}${into}${counters ? ` [${counters}]` : ''}${r.reason ? ` ${r.reason}` : ''}`;
    }
    case 'request.sent':
      return `request ${v(r.request_id)} ${v(r.method)} sent on ${v(r.stream)}`;
    case 'request.answered':
      return `request ${v(r.request_id)} answered (${v(r.status)})`;
    case 'request.cancelled':
      return `request ${v(r.request_id)} cancelled`;
    case 'request.reissued':
      return `request ${v(r.request_id)} reissued as ${v(r.new_request_id)} on ${v(r.stream)}`;
    case 'request.timed_out':
      return `request ${v(r.request_id)} timed out`;
    case 'call':
      return `call ${v(r.method)}${r.tool ? ` ${r.tool}` : ''} id ${v(r.rpc_id)} → ${v(r.status)}${r.executed === 0 ? ' (not executed)' : ''}`;
    case 'http':
      return `http ${v(r.http_method)} ${v(r.path)} → ${v(r.status)}`;
    default:
      return r.kind;
  }
}

/**
 * What an event carries: a notification or request its method; a response has none, and is the one a
 * stranded or polled call is followed by, so it names the call it answers.
 */
function carries(r: TimelineRecord): string {
  if (r.method) return `: ${r.method}`;
  if (r.rpc_kind === 'response') return r.rpc_id !== null && r.rpc_id !== undefined ? `: response to ${r.rpc_id}` : ': a response';
  return '';
}

/**
 * Who acted, where it matters: a principal other than the session's owner is the fact behind a
 * cross-principal replay, so a row names it beside the owner; the owner's own rows say nothing (most rows).
 * With no owner to compare with (the creation not in the log), every principal is named.
 */
function byPrincipal(r: TimelineRecord, owner: string | undefined): string {
  if (r.kind === 'session.created' || typeof r.principal !== 'string' || r.principal === '' || r.principal === owner) return '';
  // The answer that minted the session is its creator's, logged a moment before the creation
  if (r.kind === 'upgrade' && typeof r.new_session === 'string' && r.new_session !== '') return '';
  return owner === undefined ? ` by ${r.principal}` : ` by ${r.principal}, not the owner ${owner}`;
}

/**
 * A row whose own version is not the session's revision (in the header): a 2026-07-28 request presenting a
 * 2025-11-25 session's id, an initialize's upgrade logging the version the client asked for. Rows that log
 * none inherit the session's and say nothing.
 */
function otherRevision(r: TimelineRecord, session: string | undefined): string {
  return typeof r.protocol_version === 'string' && r.protocol_version !== session ? ` [protocol ${r.protocol_version}]` : '';
}

/**
 * A session's streams grouped by lineage (lane), lineages in the order their first stream comes, streams in the
 * order of the lineage: a stream an upgrade superseded comes before the stream that upgrade opened, whatever the
 * logged times say (under clock skew a resumption on a node behind is logged before the stream it resumes opened).
 */
export function streamsByLineage(lanes: readonly LaneInfo[]): Map<string, LaneInfo[]> {
  const byLineage = new Map<string, LaneInfo[]>();
  for (const l of lanes) {
    const members = byLineage.get(l.lane);
    if (members === undefined) byLineage.set(l.lane, [l]);
    else members.push(l);
  }
  for (const [lane, members] of byLineage) if (members.length > 1) byLineage.set(lane, inLineageOrder(members));
  return byLineage;
}

/** Each chain of upgrades from its first stream on, chains in the order their first stream comes; the rest (a cycle) as logged. */
function inLineageOrder(members: readonly LaneInfo[]): LaneInfo[] {
  const byStream = new Map(members.map((l) => [l.stream, l]));
  const successors = new Set(members.map((l) => l.superseded_by_stream).filter((s): s is string => s !== null && byStream.has(s)));
  const ordered: LaneInfo[] = [];
  const placed = new Set<string>();
  for (const head of members) {
    if (successors.has(head.stream)) continue;
    for (let l: LaneInfo | undefined = head; l !== undefined && !placed.has(l.stream); l = byStream.get(l.superseded_by_stream ?? '')) {
      placed.add(l.stream);
      ordered.push(l);
    }
  }
  return [...ordered, ...members.filter((l) => !placed.has(l.stream))];
}

export function renderTimelineText(t: SessionTimelineStream): string {
  return Array.from(timelineTextChunks(t)).join('');
}

/**
 * renderTimelineText in pieces of about 64 KB, written one after another: a soak test's session is
 * hundreds of thousands of rows, which as one string (and its lines) took a GB. Two reads of the
 * records: the first measures (the file:line column, each lane's last row), the second draws.
 */
export function* timelineTextChunks(t: SessionTimelineStream): Generator<string> {
  const out: string[] = [`session ${t.session}${t.protocol_version !== undefined ? ` (protocol ${t.protocol_version})` : ''}`];
  for (const i of t.incarnations) {
    const end = i.ended_ts !== null ? `, ${i.ended_how} ${isoTime(i.ended_ts)}` : ', live at end of log';
    out.push(`  incarnation ${i.incarnation ?? '(no nonce)'}: created ${isoTime(i.created_ts)}${i.node ? ` on ${i.node}` : ''}${i.owner ? ` by ${i.owner}` : ''}${end}`);
  }
  if (t.incarnations.length === 0) out.push('  (its creation is not in the log)');
  const streamsOf = streamsByLineage(t.lanes);
  const markOf = new Map([...streamsOf.keys()].map((lane, i) => [lane, laneMark(i)]));
  out.push('  lanes (a lane is one stream lineage; resumptions continue it on a new stream):');
  for (const [lane, members] of streamsOf) {
    out.push(`    ${markOf.get(lane)!} ${lane}: ${members.map((l) => `${l.stream}${l.via ? `/${l.via}` : ''}${laneState(l)}`).join(' → ')}`);
  }
  out.push('');
  // Every row quotes the log (ids, reasons, file names): each is made printable, none steers the terminal.
  let chunk = out.map(printable).join('\n');
  let width = 0;
  const lastRow = new Map<string, number>();
  const nodes = new Set<string>();
  let k = 0;
  for (const r of t.records) {
    width = Math.max(width, `${r.file}:${r.line}`.length);
    if (r.lane !== null) lastRow.set(r.lane, k);
    if (r.node !== null && nodes.size < 2) nodes.add(r.node);
    k++;
  }
  // A session several nodes logged: each row names its node, the main fact of a multi-node story.
  const nodeOf = nodes.size > 1 ? (r: TimelineRecord) => (r.node === null ? '' : `[${r.node}] `) : () => '';
  const gutter = new Gutter(lastRow, markOf);
  k = 0;
  let day = '';
  for (const r of t.records) {
    const iso = isoTime(r.ts_ms);
    // Rows show the time of day only; a line naming the day above the first row and at each change keeps
    // rows a day apart from reading as simultaneous (README, "The timeline").
    if (iso.slice(0, 10) !== day) {
      day = iso.slice(0, 10);
      chunk += `\n── ${day} (UTC) ──`;
    }
    chunk += `\n${printable(`${iso.slice(11, 23)} ${gutter.at(r, k++) || ' '} ${nodeOf(r)}${describeRecord(r)}${byPrincipal(r, ownerAt(t.incarnations, r.ts_ms))}${otherRevision(r, t.protocol_version)}    ${`${r.file}:${r.line}`.padStart(width)}`)}`;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}\n`;
}


/**
 * The lane columns left of each row, git-graph style: a lane takes a column at its first row and gives it
 * back after its last, so the gutter is as wide as the lanes live at once, not as every lane the session
 * ever had (a soak test's session has thousands, one after another). A row's own lane shows its letter,
 * the other live lanes a bar.
 */
class Gutter {
  private readonly columns: (string | null)[] = [];
  private readonly columnOf = new Map<string, number>();

  constructor(
    /** Each lane's last row. */
    private readonly lastRow: ReadonlyMap<string, number>,
    private readonly markOf: ReadonlyMap<string, string>,
  ) {}

  /** The gutter of row `k` (call in row order). */
  at(r: TimelineRecord, k: number): string {
    const col = r.lane === null ? -1 : this.take(r.lane);
    const mark = r.lane === null ? '' : (this.markOf.get(r.lane) ?? '?');
    const gutter = this.columns.map((lane, i) => (i === col ? mark : lane === null ? ' ' : '│')).join('');
    if (r.lane !== null && this.lastRow.get(r.lane) === k) this.giveBack(r.lane, col);
    return gutter;
  }

  private take(lane: string): number {
    let col = this.columnOf.get(lane);
    if (col === undefined) {
      col = this.columns.indexOf(null);
      if (col < 0) col = this.columns.push(null) - 1;
      this.columns[col] = lane;
      this.columnOf.set(lane, col);
    }
    return col;
  }

  private giveBack(lane: string, col: number): void {
    this.columns[col] = null;
    this.columnOf.delete(lane);
    while (this.columns.length > 0 && this.columns[this.columns.length - 1] === null) this.columns.pop();
  }
}

/**
 * How a stream ended, null while it has not. A stream superseded while still open (a dual writer's old stream)
 * says by which upgrade and when, before how it ended; one superseded after it ended is an ordinary resumption,
 * said by the lanes' arrow. The timeline, the TUI's drill-down and the HTML report's lane key say it alike.
 */
export function laneEnd(l: LaneInfo): string | null {
  const end = l.fenced_ts !== null ? 'fenced' : l.closed_ts !== null ? `closed${l.close_reason ? `: ${l.close_reason}` : ''}` : null;
  if (l.superseded_while_open === true) {
    const upgrade = `the upgrade${l.superseded_by_stream ? ` to ${l.superseded_by_stream}` : ''}, ${l.superseded_file}:${l.superseded_line}`;
    return `superseded while open at ${isoTime(l.superseded_ts!)} by ${upgrade}; ${end === null ? 'never closed' : `then ${end}`}`;
  }
  return end;
}

function laneState(l: LaneInfo): string {
  const end = laneEnd(l);
  return end === null ? '' : ` (${end})`;
}

function laneMark(i: number): string {
  return 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[i % 26]!;
}
