import { lineTextResolver } from '../../detect/evidence.js';
import type { FindingBook } from '../../live/finding-book.js';
import { findingIdentity } from '../../findings/identity.js';
import type { Finding } from '../../model/finding.js';
import { severityRank, type Severity } from '../../model/severity.js';
import { isoTime } from '../../model/phrasing.js';
import { describeRecord, laneEnd } from '../../render/timeline-text.js';
import type { Db } from '../../store/db.js';
import { sessionTimelineOf } from '../../pipeline/derived.js';
import type { IncarnationInfo, LaneInfo } from '../../store/session-timeline.js';
import { toFeedItem, type FeedItem, type SessionDetail } from '../view-model.js';

// A session's drill-down: its streams as lanes, every record with file:line,
// and its findings with the quoted evidence lines. The dashboard asks for it
// on every model change while the session is open, so the last one is kept
// until the session is touched again or its findings change.

export interface DetailLoaderOptions {
  /** Changes whenever the session's records change (live mode); constant for recorded logs. */
  revision?: (session: string) => number;
}

export function detailLoader(db: Db, book: FindingBook, opts: DetailLoaderOptions = {}): (session: string) => SessionDetail | undefined {
  const lineText = lineTextResolver(db);
  let cached: { key: string; detail: SessionDetail | undefined } | undefined;
  return (session) => {
    const key = `${session}\0${opts.revision?.(session) ?? 0}\0${book.version}`;
    if (cached?.key !== key) cached = { key, detail: buildDetail(db, session, book.forSession(session), lineText) };
    return cached.detail;
  };
}

function buildDetail(
  db: Db,
  session: string,
  findings: Finding[],
  lineText: (ref: { file: string; line: number }) => string | undefined,
): SessionDetail | undefined {
  // Rows made as the records are read: a soak test's session is hundreds of thousands, held once, as rows.
  // Live mode's store takes lines between its rounds: what they brought is derived before it is shown.
  const t = sessionTimelineOf(db, session);
  if (t === undefined) return undefined;
  // A row that is evidence of a finding takes the colour of the gravest one.
  const severityAt = new Map<string, Severity>();
  for (const f of findings) {
    for (const e of f.evidence) {
      const k = `${e.file}:${e.line}`;
      const had = severityAt.get(k);
      if (had === undefined || severityRank(f.severity) > severityRank(had)) severityAt.set(k, f.severity);
    }
  }
  const items: FeedItem[] = findings
    .slice()
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
    .map((f) => {
      const item = toFeedItem(f, findingIdentity(f));
      const evidence = item.evidence.map((e) => {
        const text = lineText(e);
        return text === undefined ? e : { ...e, text };
      });
      return { ...item, evidence };
    });
  return {
    session,
    incarnations: t.incarnations.map(describeIncarnation),
    lanes: t.lanes.map((l) => ({ stream: l.stream, ...(l.via !== null && { via: l.via }), state: laneState(l) })),
    rows: Array.from(t.records, (r) => {
      const severity = severityAt.get(`${r.file}:${r.line}`);
      const lane = (r.new_stream as string | null) ?? r.stream;
      return {
        at: isoTime(r.ts_ms),
        lane: lane ?? null,
        kind: r.kind,
        text: describeRecord(r),
        ref: { file: r.file, line: r.line },
        ...(severity !== undefined && { severity }),
      };
    }),
    findings: items,
  };
}

function describeIncarnation(i: IncarnationInfo): string {
  const end = i.ended_ts !== null ? `, ${i.ended_how ?? 'ended'} ${isoTime(i.ended_ts)}` : ', live';
  return `${i.incarnation ?? '(no nonce)'}: created ${isoTime(i.created_ts)}${i.node ? ` on ${i.node}` : ''}${i.owner ? ` by ${i.owner}` : ''}${end}`;
}

function laneState(l: LaneInfo): string {
  return laneEnd(l) ?? (l.superseded_ts !== null ? 'superseded, never closed' : 'open');
}
