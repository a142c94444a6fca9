import type { Finding } from '../../model/finding.js';
import { severityRank, type Severity } from '../../model/severity.js';
import { isoTime } from '../../model/phrasing.js';
import type { SessionTimelineStream, TimelineRecord } from '../../store/session-timeline.js';
import { sessionLabel } from '../common.js';
import { timelineAnchor } from './anchors.js';
import { counted } from './words.js';
import { text } from './escape.js';
import { swimlaneSvg, type Mark, type Row } from './swimlane.js';

// Which sessions get a swimlane, and which of their records are drawn. A
// report of tens of thousands of findings names thousands of sessions, and a
// long session has thousands of records: the gravest sessions are drawn, each
// with its evidence and its structure (upgrades, streams, requests) first,
// and the rest is counted with the command that shows it whole.

const MAX_TIMELINES = 12;
export const MAX_ROWS = 160;

/** Records that carry a session's structure; plain events are drawn only when there is room. */
const STRUCTURAL = /^(upgrade|stream\.|session\.|request\.|buffer\.)/;

export interface NumberedFinding {
  number: number;
  finding: Finding;
}

export interface DrawnTimeline {
  index: number;
  /** Its records are read as the drawing is made: a long session is never held whole. */
  timeline: SessionTimelineStream;
  findings: NumberedFinding[];
}

export interface TimelineChoice {
  drawn: DrawnTimeline[];
  /** Sessions named by findings but not drawn (over the cap), gravest first. */
  notDrawn: string[];
  /** False when no timeline reader was given (rendered without the store). */
  available: boolean;
}

/**
 * The sessions to draw: gravest finding first, then most findings, then first named. Two passes over
 * the findings (a report may hold hundreds of thousands): one keeps three numbers per session, the
 * other the findings of the sessions drawn.
 */
export function chooseTimelines(numbered: () => Iterable<NumberedFinding>, read: ((session: string) => SessionTimelineStream | undefined) | undefined): TimelineChoice {
  const bySession = new Map<string, { gravest: number; count: number; first: number }>();
  for (const { number, finding } of numbered()) {
    if (finding.session === null) continue;
    const seen = bySession.get(finding.session);
    const rank = severityRank(finding.severity);
    if (seen === undefined) bySession.set(finding.session, { gravest: rank, count: 1, first: number });
    else {
      seen.gravest = Math.max(seen.gravest, rank);
      seen.count += 1;
    }
  }
  const ordered = [...bySession.entries()].sort((a, b) => b[1].gravest - a[1].gravest || b[1].count - a[1].count || a[1].first - b[1].first).map(([s]) => s);
  if (read === undefined) return { drawn: [], notDrawn: ordered, available: false };
  const chosen: { session: string; timeline: SessionTimelineStream }[] = [];
  const notDrawn: string[] = [];
  for (const session of ordered) {
    const timeline = chosen.length < MAX_TIMELINES ? read(session) : undefined;
    if (timeline === undefined) notDrawn.push(session);
    else chosen.push({ session, timeline });
  }
  const findingsOf = new Map<string, NumberedFinding[]>(chosen.map((c) => [c.session, []]));
  if (chosen.length > 0) for (const n of numbered()) if (n.finding.session !== null) findingsOf.get(n.finding.session)?.push(n);
  return { drawn: chosen.map((c, index) => ({ index, timeline: c.timeline, findings: findingsOf.get(c.session)! })), notDrawn, available: true };
}

export function timelinesSection(choice: TimelineChoice): string {
  const out = ['<section id="timelines"><h2>Session timelines</h2>'];
  if (!choice.available) {
    out.push('<p class="note">Timelines are drawn from the store: <code>resumescope analyze --format html</code> draws them.</p>');
  } else if (choice.drawn.length === 0) {
    out.push('<p class="none">No finding names a session.</p>');
  } else {
    out.push(
      `<p class="note">Time runs down; each stream is a lane, lanes of one lineage side by side. Rows that are evidence of a finding are shaded in its severity's colour and name it.${
        choice.notDrawn.length || choice.drawn.length === MAX_TIMELINES ? ` The ${MAX_TIMELINES} sessions with the gravest findings are drawn.` : ''
      }</p>`,
      legend(),
    );
  }
  for (const d of choice.drawn) out.push(sessionBlock(d));
  if (choice.notDrawn.length > 0) {
    const shown = choice.notDrawn.slice(0, 200);
    const more = choice.notDrawn.length - shown.length;
    out.push(
      `<details class="more-sessions"><summary>${text(counted(choice.notDrawn.length, 'other session'))} named by findings, not drawn here</summary><p>See one with <code>resumescope timeline &lt;session&gt; …</code>.</p><ul class="ids">${shown
        .map((s) => `<li><code>${text(s)}</code></li>`)
        .join('')}</ul>${more > 0 ? `<p class="note">and ${more.toLocaleString('en-US')} more</p>` : ''}</details>`,
    );
  }
  out.push('</section>');
  return out.join('\n');
}

function sessionBlock(d: DrawnTimeline): string {
  const t = d.timeline;
  const marks = evidenceMarks(d.findings);
  const rows = pickRows(t.records, marks);
  const drawnRecords = rows.filter((r) => r.type === 'record').length;
  const total = rows.reduce((n, r) => n + (r.type === 'gap' ? r.skipped : 1), 0);
  const incarnations = t.incarnations.length
    ? t.incarnations
        .map(
          (i) =>
            `<li>incarnation <code>${text(i.incarnation ?? '(no nonce)')}</code>: created ${text(isoTime(i.created_ts))}${i.node ? ` on <code>${text(i.node)}</code>` : ''}${i.owner ? ` by <code>${text(i.owner)}</code>` : ''}${
              i.ended_ts !== null ? `, ${text(i.ended_how ?? 'ended')} ${text(isoTime(i.ended_ts))}` : ', live at the end of the log'
            }</li>`,
        )
        .join('')
    : '<li>its creation is not in the log</li>';
  const cut = drawnRecords < total ? ` <span class="note">${drawnRecords} of ${total.toLocaleString('en-US')} records drawn (evidence and structure first); all of them: <code>resumescope timeline ${text(t.session)} …</code></span>` : '';
  const numbers = d.findings.map((n) => `<a href="#finding-${n.number}">#${n.number}</a>`);
  const shownNumbers = numbers.length > 30 ? [...numbers.slice(0, 30), `and ${numbers.length - 30} more`] : numbers;
  return `<article class="timeline" id="${timelineAnchor(d.index)}"><h3>session <code>${text(sessionLabel(t.session))}</code></h3>
<p class="named">${text(counted(d.findings.length, 'finding'))}: ${shownNumbers.join(' ')}</p>
<ul class="incarnations">${incarnations}</ul>${cut}
<div class="swim-wrap">${swimlaneSvg(t, rows, `timeline of session ${t.session}`, String(d.index))}</div></article>`;
}

/** Evidence rows by file:line: the gravest severity that points at them, and the findings that do. */
function evidenceMarks(findings: NumberedFinding[]): Map<string, Mark> {
  const marks = new Map<string, Mark>();
  for (const { number, finding } of findings) {
    for (const ref of finding.evidence) {
      const key = `${ref.file}:${ref.line}`;
      const m = marks.get(key);
      if (m === undefined) marks.set(key, { severity: finding.severity, numbers: [number] });
      else {
        if (severityRank(finding.severity) > severityRank(m.severity)) m.severity = finding.severity as Severity;
        m.numbers.push(number);
      }
    }
  }
  return marks;
}

/**
 * At most MAX_ROWS rows: evidence first, then structure, then events, shown in log order with the gaps
 * counted. One pass keeps the first `max` records of each rank, in log order: what sorting every record
 * by (rank, position) and keeping `max` would keep, holding three times `max` records, not the session
 * (a soak test's session is hundreds of thousands).
 */
export function pickRows(records: Iterable<TimelineRecord>, marks: Map<string, Mark>, max = MAX_ROWS): Row[] {
  const rank = (r: TimelineRecord) => (marks.has(`${r.file}:${r.line}`) ? 0 : STRUCTURAL.test(r.kind) ? 1 : 2);
  const firsts: { at: number; record: TimelineRecord }[][] = [[], [], []];
  let total = 0;
  for (const record of records) {
    const ofRank = firsts[rank(record)]!;
    if (ofRank.length < max) ofRank.push({ at: total, record });
    total++;
  }
  const kept = firsts.flat().slice(0, max).sort((a, b) => a.at - b.at);
  const rows: Row[] = [];
  let next = 0;
  for (const { at, record } of kept) {
    if (at > next) rows.push({ type: 'gap', skipped: at - next });
    rows.push({ type: 'record', record, mark: marks.get(`${record.file}:${record.line}`) });
    next = at + 1;
  }
  if (total > next) rows.push({ type: 'gap', skipped: total - next });
  return rows;
}

function legend(): string {
  return `<p class="legend" aria-label="legend">
<svg width="12" height="12" viewBox="-6 -6 12 12" aria-hidden="true"><circle r="3.5" class="ev-sent"/></svg> event sent
<svg width="12" height="12" viewBox="-6 -6 12 12" aria-hidden="true"><circle r="3.5" class="ev-replayed"/></svg> replayed
<svg width="14" height="14" viewBox="-7 -7 14 14" aria-hidden="true"><path d="M0 -6L6 0L0 6L-6 0Z" class="up-resume"/></svg> upgrade (colour: resume, attach, fresh, reject)
<svg width="14" height="14" viewBox="-7 -7 14 14" aria-hidden="true"><rect x="-2" y="-7" width="4" height="14" class="req-answered"/></svg> request, sent to answered
<svg width="14" height="14" viewBox="-7 -7 14 14" aria-hidden="true"><rect x="-2" y="-7" width="4" height="14" class="req-timed_out"/></svg> timed out
<svg width="14" height="14" viewBox="-7 -7 14 14" aria-hidden="true"><rect x="-2" y="-7" width="4" height="14" class="req-pending"/></svg> pending at the end
<svg width="16" height="12" viewBox="-8 -6 16 12" aria-hidden="true"><rect x="-7" y="-2" width="14" height="4" class="fence"/></svg> fenced
<svg width="12" height="12" viewBox="-6 -6 12 12" aria-hidden="true"><rect x="-4" y="-4" width="8" height="8" class="closed"/></svg> closed
<svg width="16" height="12" viewBox="-8 -6 16 12" aria-hidden="true"><line x1="0" y1="-6" x2="0" y2="6" class="life zombie"/></svg> superseded but not closed</p>`;
}
