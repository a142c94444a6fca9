import type { Finding } from '../model/finding.js';
import { RULES } from '../detect/rules/index.js';
import { findingIdentity } from '../findings/identity.js';
import { severityRank, type Severity } from '../model/severity.js';

// The findings of a live run. A session is re-judged whenever it is touched,
// and its current findings replace the earlier ones (a request pending at the
// end of the log so far may be answered in the next batch); what was reported
// once is remembered, so a finding is announced once however often it is found.
//
// A rule judged "when the log ends" cannot be final while the log grows: a
// server request in flight when its stream closed is an orphaned-request only
// if no answer follows. Such findings show in the book at once (the dashboard
// draws the current state) but are announced only once they have stood for
// the settle period, or when the run ends: an announcement cannot be taken back.
//
// Records are ordered by their time, not by when their line arrived: a session's
// finding later than where some followed file has got to rests on lines that file has
// not shown yet (a node whose shipper lags, whose close of the stream another
// node took over is still on its way). It is held the same way, and announced
// as soon as every followed file has shown a line at or after its time (a
// file's lines come in time order), or once it has stood for the settle period
// (a file that merely went quiet holds nothing longer than that).

/** Rules whose findings later lines can withdraw. */
const END_OF_LOG_RULES: ReadonlySet<string> = new Set(RULES.filter((r) => r.live.settles === 'end-of-log').map((r) => r.id));
export const DEFAULT_SETTLE_MS = 5_000;

/**
 * duplicate-tool-call's retry from a new session the principal left the first one for: "left" is read from the
 * first session's last call, upgrade or answer in the whole log, so a later line of the first session (an
 * answer a second after the retry) withdraws it, as analyze of the longer log does not find it. Told by the
 * phrase the rule words that case with (the rest of its findings later lines cannot undo); a session id that
 * happens to hold the phrase only has its finding held a while.
 */
const LEFT_SESSION_RETRY = /\) after a new session /;

/** Whether later lines can withdraw this finding: it is announced once it has stood for the settle period. */
function withdrawable(f: Pick<Finding, 'rule' | 'message'>): boolean {
  return END_OF_LOG_RULES.has(f.rule) || (f.rule === 'duplicate-tool-call' && LEFT_SESSION_RETRY.test(f.message));
}


export class FindingBook {
  private readonly bySession = new Map<string, Finding[]>();
  /** Findings without a session each stand on one record, judged once: they only accumulate. */
  private readonly sessionless = new Map<string, Finding>();
  private readonly announced = new Set<string>();
  /**
   * Findings waiting to settle, with when they were first found; `lagging`: held only because a followed file
   * has not yet shown lines up to the finding's time (`atMs`), so released as soon as every file has.
   */
  private readonly held = new Map<string, { finding: Finding; since: number; atMs: number; lagging: boolean }>();
  /** Every followed file still growing has shown lines up to this time (epoch ms): see noteShownThrough. */
  private shownThrough = Number.POSITIVE_INFINITY;
  private sorted: Finding[] | undefined = [];
  /** Bumped on every change, so views can tell a stale copy. */
  version = 0;

  constructor(private readonly settleMs = DEFAULT_SETTLE_MS) {}

  /**
   * Where the followed files still growing have all got to (the least of their latest record times; infinity when
   * none is): set before the round that judges their lines, so that a finding is held or released by what that
   * round judged, not by lines that arrived since.
   */
  noteShownThrough(ms: number): void {
    this.shownThrough = ms;
  }

  /**
   * Replaces the findings of the judged sessions; returns the findings to
   * announce (never announced before, and settled where their rule needs it), in time order.
   */
  apply(judged: Iterable<string>, findings: Finding[], now = 0): Finding[] {
    const next = new Map<string, Finding[]>();
    for (const s of judged) next.set(s, []);
    const fresh: Finding[] = [];
    const sessionlessBefore = this.sessionless.size;
    for (const f of findings) {
      const key = findingIdentity(f);
      if (f.session === null) this.sessionless.set(key, f);
      else {
        const list = next.get(f.session);
        // A finding about a session that was not judged is not this run's to keep.
        if (list === undefined) continue;
        list.push(f);
      }
      if (this.announced.has(key)) continue;
      const atMs = Date.parse(f.at);
      const withdraws = withdrawable(f);
      // A finding without a session stands on its one record: no other line withdraws it.
      if (withdraws || (f.session !== null && atMs > this.shownThrough)) {
        const held = this.held.get(key);
        if (held === undefined) this.held.set(key, { finding: f, since: now, atMs, lagging: !withdraws });
        else if (withdraws) held.lagging = false;
        continue;
      }
      this.announced.add(key);
      fresh.push(f);
    }
    let changed = fresh.length > 0 || this.sessionless.size !== sessionlessBefore;
    for (const [s, list] of next) {
      const before = this.bySession.get(s) ?? [];
      if (!sameKeys(before, list)) changed = true;
      if (list.length === 0) this.bySession.delete(s);
      else this.bySession.set(s, list);
    }
    if (changed) {
      this.version++;
      this.sorted = undefined;
    }
    return fresh.sort(byTime);
  }

  /**
   * Held findings that still stand after the settle period, or (held only for a file that lagged) once every
   * followed file has shown their time; all that still stand, at the end of a run. Each as it now reads: a
   * line that came meanwhile may have reworded it ("logged nothing after" a node's last line).
   */
  settle(now: number, end = false): Finding[] {
    const out: Finding[] = [];
    for (const [key, { finding, since, atMs, lagging }] of this.held) {
      const current = this.current(finding, key);
      if (current === undefined) this.held.delete(key);
      else if (end || now - since >= this.settleMs || (lagging && atMs <= this.shownThrough)) {
        this.held.delete(key);
        this.announced.add(key);
        out.push(current);
      }
    }
    return out.sort(byTime);
  }

  /** The sessions with a finding waiting to settle (one that later lines may withdraw). */
  heldSessions(): Set<string> {
    const out = new Set<string>();
    for (const { finding } of this.held.values()) if (finding.session !== null) out.add(finding.session);
    return out;
  }

  /** When the next held finding settles; undefined when none is held. */
  nextSettle(): number | undefined {
    let next: number | undefined;
    for (const { since } of this.held.values()) next = Math.min(next ?? Number.POSITIVE_INFINITY, since + this.settleMs);
    return next;
  }

  /** The finding with this identity as the book holds it now; undefined once it is withdrawn. */
  private current(f: Finding, key: string): Finding | undefined {
    return f.session === null ? this.sessionless.get(key) : this.forSession(f.session).find((g) => findingIdentity(g) === key);
  }

  /** Every current finding, oldest first. */
  all(): Finding[] {
    this.sorted ??= [...this.sessionless.values(), ...[...this.bySession.values()].flat()].sort(byTime);
    return this.sorted;
  }

  forSession(session: string): Finding[] {
    return this.bySession.get(session) ?? [];
  }

  countBySeverity(): Record<Severity, number> {
    const out: Record<Severity, number> = { info: 0, warning: 0, error: 0, critical: 0 };
    for (const f of this.all()) out[f.severity]++;
    return out;
  }
}

/** Time order; at one instant the most severe first (`watch … | head -1` shows the error, not the info). */
function byTime(a: Finding, b: Finding): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  return severityRank(b.severity) - severityRank(a.severity) || a.rule.localeCompare(b.rule);
}

function sameKeys(a: Finding[], b: Finding[]): boolean {
  if (a.length !== b.length) return false;
  const keys = new Set(a.map(findingIdentity));
  return b.every((f) => keys.has(findingIdentity(f)));
}
