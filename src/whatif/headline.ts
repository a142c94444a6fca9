import { duration, plural } from '../model/phrasing.js';
import { RETENTION_CAUSES, type TruncationCause } from '../detect/rules/silent-truncation.js';
import type { Finding } from '../model/finding.js';
import { RULE_IDS } from '../detect/rules/index.js';
import type { CallsWhatIf, Flip, MovedFinding, PolicyChange, WhatIfPolicy } from './types.js';

// The sentences an incident review asks for: "with 120 s retention: 3 of 4
// silent-truncation findings disappear (the other one: S4 at … replayed too few
// events: not a retention problem)". Pure: built from the two reports' differences.

/** A silent-truncation the what-if world still has, and why. */
export interface RemainingTruncation {
  session: string;
  at: string;
  causes: TruncationCause[];
  /** Its Last-Event-ID, where the log never shows it sent: no retention can be judged for it. */
  unplaced?: string;
}

export interface HeadlineInput {
  change: PolicyChange;
  policy: WhatIfPolicy;
  before: Record<string, number>;
  after: Record<string, number>;
  disappeared: Finding[];
  appeared: Finding[];
  /** Faults of both worlds that the change reports at another time. */
  moved?: MovedFinding[];
  flips: Flip[];
  remainingTruncations: RemainingTruncation[];
  /** Reconnects whose position the change keeps but a correct server would still refuse, with why. */
  stillRefused: string[];
  /** How many silent-truncation findings disappear only because their short replay was the logged trim's doing. */
  shortfallsForgiven: number;
  /** The calls a broken stream loses under the revision the change names (`--protocol`). */
  calls?: CallsWhatIf;
}

/** "120 s retention and a 10 s fence grace": what the what-if world changes. */
export function describeChange(change: PolicyChange, policy: WhatIfPolicy): string {
  const parts: string[] = [];
  const r = change.retention;
  if (r?.maxAgeMs !== undefined && r.maxEvents !== undefined) parts.push(`${duration(r.maxAgeMs)} / ${r.maxEvents}-event retention`);
  else if (r?.maxAgeMs !== undefined) parts.push(`${duration(r.maxAgeMs)} retention`);
  else if (r?.maxEvents !== undefined) parts.push(`${r.maxEvents}-event retention`);
  if (change.fenceGraceMs !== undefined) parts.push(`a ${duration(change.fenceGraceMs)} fence grace`);
  if (change.stormCount !== undefined || change.stormWindowMs !== undefined) {
    parts.push(`a 404-storm at ${policy.stormCount} POSTs in ${duration(policy.stormWindowMs)}`);
  }
  if (change.duplicateCallWindowMs !== undefined) parts.push(`a ${duration(change.duplicateCallWindowMs)} duplicate-call window`);
  if (change.unresumable !== undefined) parts.push(`unresumable reconnects ${change.unresumable === 'reset' ? 'reset' : 'rejected'}`);
  if (change.protocolVersion !== undefined) parts.push(`protocol ${change.protocolVersion}`);
  return parts.length > 0 ? parts.join(' and ') : 'the policy as logged';
}

export function headlines(i: HeadlineInput): string[] {
  const change = describeChange(i.change, i.policy);
  // The question --protocol asks comes first: which calls would have been lost or run twice.
  const lines: string[] = i.calls === undefined ? [] : [callsLine(i.calls, change)];
  for (const rule of RULE_IDS) {
    const gone = i.disappeared.filter((f) => f.rule === rule).length;
    const came = i.appeared.filter((f) => f.rule === rule).length;
    const was = i.before[rule] ?? 0;
    const remainingNote = rule === 'silent-truncation' && i.change.retention !== undefined ? truncationNote(i.remainingTruncations, was, gone) : '';
    const moved = (i.moved ?? []).filter((m) => m.rule === rule);
    if (gone === 0 && came === 0 && remainingNote === '' && moved.length === 0) continue;
    const parts: string[] = [];
    if (moved.length > 0) parts.push(movedWords(rule, moved));
    // A detector's own threshold changed: the log's events happened all the same, only what is reported differs.
    const detection = isDetectionThreshold(rule, i.change);
    const goneWords = detection ? (gone === 1 ? 'is no longer reported' : 'are no longer reported') : `disappear${gone === 1 ? 's' : ''}`;
    const cameWords = detection ? (came === 1 ? 'is reported' : 'are reported') : `appear${came === 1 ? 's' : ''}`;
    if (gone > 0) parts.push(`${gone} of ${plural(was, `${rule} finding`)} ${goneWords}${remainingNote}`);
    else if (remainingNote !== '') parts.push(`${was === 1 ? `the ${rule} finding stays` : `all ${was} ${rule} findings stay`}${remainingNote}`);
    if (came > 0) parts.push(`${plural(came, `new ${rule} finding`)} ${cameWords}`);
    const note = detection && gone + came > 0 ? " (a detection threshold, not the server's policy: what the log shows happened as logged)" : '';
    lines.push(`with ${change}: ${parts.join('; ')}${note}`);
  }
  if (i.shortfallsForgiven > 0) {
    lines.push(
      `${plural(i.shortfallsForgiven, 'resumption')} replayed short only by events the logged trims had dropped: with ${change} the server would still have held them, so the short replay is counted as the retention's doing`,
    );
  }
  lines.push(flipLine(i.flips, change, judgedAnew(i)));
  if (i.stillRefused.length > 0) {
    lines.push(`with ${change}, a correct server would keep the position of ${plural(i.stillRefused.length, 'reconnect')} but still refuse ${i.stillRefused.length === 1 ? 'it' : 'them'}: ${i.stillRefused.join('; ')}`);
  }
  if (i.calls === undefined && lines.length === 1 && i.flips.length === 0 && i.stillRefused.length === 0) {
    return [`with ${change}: no finding and no reconnect decision changes`];
  }
  return lines;
}

/**
 * "with protocol 2026-07-28: 2 client requests would have been lost (their response stream
 * broke before the response; 1 rescued today by a resumption, 1 lost as logged too); the
 * client re-issues them under new ids, and 2 tools/call would run twice unless the tool is
 * idempotent".
 */
function callsLine(c: CallsWhatIf, change: string): string {
  const unjudged = c.unjudged > 0 ? ` (${plural(c.unjudged, 'client request')} without a response event in the log ${c.unjudged === 1 ? 'is' : 'are'} not judged)` : '';
  const calls = c.sessions.flatMap((s) => s.calls);
  const lost = calls.filter((x) => x.after === 'lost');
  if (lost.length === 0) {
    if (c.judged === 0) return `with ${change}: the log shows no response event of a client request, so which calls a broken stream would lose cannot be told${unjudged}`;
    const resumed = c.judged - c.delivered;
    if (resumed > 0) {
      return `with ${change}: no client request would have been lost: ${plural(resumed, 'response')} whose stream broke ${resumed === 1 ? 'was' : 'were'} brought by a resumption, which that revision keeps${unjudged}`;
    }
    const every = c.judged === 1 ? 'the one response logged' : `every one of the ${c.judged} responses logged`;
    return `with ${change}: no client request would have been lost: ${every} came on the stream its request opened${unjudged}`;
  }
  const rescued = lost.filter((x) => x.before === 'rescued');
  const byAttach = rescued.filter((x) => x.rescued_by?.decision === 'attach').length;
  const by = byAttach === 0 ? 'a resumption' : byAttach === rescued.length ? 'an attach' : 'a resumption or attach';
  const alreadyLost = lost.filter((x) => x.before === 'lost').length;
  const fates = [rescued.length > 0 && `${rescued.length} rescued today by ${by}`, alreadyLost > 0 && `${alreadyLost} lost as logged too`].filter(Boolean);
  const reissued = lost.filter((x) => x.reissued).length;
  const twice = lost.filter((x) => x.run_twice).length;
  const them = lost.length === 1 ? 'it' : 'them';
  const again =
    reissued === 0
      ? ''
      : `; the client re-issues ${reissued === lost.length ? them : reissued} under ${reissued === 1 ? 'a new id' : 'new ids'}${twice > 0 ? `, and ${plural(twice, 'tool call')} would run twice unless the tool is idempotent` : ''}`;
  const its = lost.length === 1 ? 'its' : 'their';
  return `with ${change}: ${plural(lost.length, 'client request')} would have been lost (${its} response stream broke before the response${fates.length > 0 ? `; ${fates.join(', ')}` : ''})${again}${unjudged}`;
}

/** Why the silent-truncations that stay, stay: "(the other one: S4 at … replayed too few events: not a retention problem)". */
function truncationNote(remaining: RemainingTruncation[], was: number, gone: number): string {
  if (remaining.length === 0 || was === 0) return '';
  // Named by session and time, as analyze lists them: "the 4th" read as analyze's #4, which was another one.
  const which = gone === 0 ? (remaining.length === 1 ? 'it' : 'all') : remaining.length === 1 ? 'the other one' : `the other ${remaining.length}`;
  if (remaining.length <= LISTED_TRUNCATIONS) return ` (${which}: ${remaining.map((t) => `${t.session} at ${t.at} ${truncationWhy(t)}`).join('; ')})`;
  // Hundreds would make one sentence of pages: counted by why, the first few named.
  const byWhy = new Map<string, RemainingTruncation[]>();
  for (const t of remaining) {
    const why = truncationWhy(t);
    const same = byWhy.get(why);
    if (same === undefined) byWhy.set(why, [t]);
    else same.push(t);
  }
  const groups = [...byWhy].sort((a, b) => b[1].length - a[1].length).map(([why, ts]) => {
    const named = ts.slice(0, NAMED_PER_WHY).map((t) => `${t.session} at ${t.at}`);
    const more = ts.length > NAMED_PER_WHY ? ` and ${ts.length - NAMED_PER_WHY} more` : '';
    return `${ts.length} ${why} (${named.join(', ')}${more})`;
  });
  return ` (${which}: ${groups.join('; ')}; resumescope analyze --rule silent-truncation lists them as logged)`;
}

/** The rule's finding depends on a threshold of the detector only, which the change moves (the storm count, the duplicate-call window). */
function isDetectionThreshold(rule: string, change: PolicyChange): boolean {
  if (rule === '404-storm') return change.stormCount !== undefined || change.stormWindowMs !== undefined;
  if (rule === 'duplicate-tool-call') return change.duplicateCallWindowMs !== undefined;
  return false;
}

/** "the 404-storm finding of D1 stays, reported at T' instead of T (…)": the same fault, its threshold crossed at another time. */
function movedWords(rule: string, moved: MovedFinding[]): string {
  const why = "(the detector's threshold moved, not the storm)";
  if (moved.length === 1) {
    const [m] = moved as [MovedFinding];
    return `the ${rule} finding of ${m.session ?? '(no session)'} stays, reported at ${m.after_at} instead of ${m.before_at} ${why}`;
  }
  const named = moved.slice(0, LISTED_TRUNCATIONS).map((m) => `${m.session ?? '(no session)'} at ${m.after_at} instead of ${m.before_at}`);
  const more = moved.length > LISTED_TRUNCATIONS ? ` and ${moved.length - LISTED_TRUNCATIONS} more` : '';
  return `${moved.length} ${rule} findings stay, reported at another time ${why}: ${named.join('; ')}${more}`;
}

/** Remaining truncations named one by one; past this they are counted by why. */
const LISTED_TRUNCATIONS = 5;
const NAMED_PER_WHY = 3;

function truncationWhy(t: RemainingTruncation): string {
  if (t.unplaced !== undefined) {
    return `resumed event ${t.unplaced}, which the log never shows sent: whether the new retention would have kept it cannot be told, so the logged trim stands`;
  }
  const phrases: Record<TruncationCause, string> = {
    'short-replay': 'replayed too few events',
    'late-first-replayed': 'started its replay past the next event',
    'max-age': 'resumed a position older than the new retention',
    'max-events': 'resumed a position more events back than the new retention keeps',
    'log-evicted': "resumed after the session's event log was evicted",
    trimmed: 'resumed a trimmed position',
  };
  const lead = t.causes[0];
  const why = lead === undefined ? 'still truncated' : phrases[lead];
  return t.causes.some((c) => RETENTION_CAUSES.has(c)) ? why : `${why}: not a retention problem`;
}

/**
 * engine-divergence findings that come or go while no engine decision flips:
 * the engine decides each reconnect as before, and what changed is whether the
 * server's logged answer is still a correct choice (a 409 while the prior writer
 * is fenced within the grace). Said, so the two lines do not contradict.
 */
function judgedAnew(i: HeadlineInput): string {
  const gone = i.disappeared.filter((f) => f.rule === 'engine-divergence').length;
  const came = i.appeared.filter((f) => f.rule === 'engine-divergence').length;
  if (i.flips.length > 0 || gone + came === 0) return '';
  const n = gone > 0 ? gone : came;
  const which = `${gone > 0 ? 'the' : 'the new'} ${plural(n, 'engine-divergence finding')}`;
  const why =
    i.change.fenceGraceMs !== undefined
      ? gone > 0
        ? `the server's logged refusal now falls within the fence grace of the writer it waited for, which a correct server may also do`
        : `the server's logged refusal no longer falls within the fence grace of the writer it waited for`
      : `the server's logged answer is judged against the changed policy`;
  return ` (the engine decides each reconnect as before; ${which} ${gone > 0 ? 'disappear' : 'appear'}${n === 1 ? 's' : ''} because ${why})`;
}

function flipLine(flips: Flip[], change: string, note = ''): string {
  if (flips.length === 0) return `with ${change}: no reconnect decision flips${note}`;
  const kinds = new Map<string, number>();
  for (const f of flips) {
    const k = `${f.before.decision} → ${f.after.decision}`;
    kinds.set(k, (kinds.get(k) ?? 0) + 1);
  }
  const detail = [...kinds].map(([k, n]) => `${n} ${k}`).join(', ');
  return `with ${change}: ${plural(flips.length, 'reconnect decision')} flip${flips.length === 1 ? 's' : ''} (${detail})`;
}
