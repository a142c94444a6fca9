import type { ContextNeed } from '../detect/rule.js';
import type { Finding, NotKnowable } from '../model/finding.js';
import type { RunOptions } from '../detect/run.js';
import { detect } from '../pipeline/derived.js';
import { DEFAULT_DETECT_OPTIONS } from '../detect/types.js';
import { openDb, type Db } from '../store/db.js';
import type { ContextIndex } from './context-index.js';
import { contextSessions, neededContext } from './context-needs.js';

// Detection scoped to the sessions a batch touched. The rules judge the whole
// database they are given, in time linear in it: a round that touched a few
// sessions of a long log would pay for all of it, so live mode hands them a scratch
// database that holds only the touched sessions, plus what the enabled rules'
// `live.reads` ask for beside them (detect/rule.ts lists the needs, context-needs.ts
// implements each). Findings are kept only for the touched sessions (and the
// new session-less records): a context session is there to be looked up, not
// judged, since its own context is not all there. A round that touched a good
// part of the log judges it in place instead (session.ts, LiveSession.judge).

export interface ScopedRun {
  /** The sessions judged: their current findings replace the earlier ones. */
  sessions: string[];
  findings: Finding[];
  /** What could not be judged for the judged sessions (and why). */
  notKnowable: NotKnowable[];
  /** Sessions copied for lookups only. */
  contextSessions: number;
  records: number;
}

/** Sessions per scratch database: a catch-up over a large file is judged in slices of this many. */
export const SCOPE_CHUNK = 200;

const TABLES = ['records', 'incarnations', 'streams', 'events', 'requests'] as const;

/**
 * Judges `sessions` (already derived) and the session-less records with ids
 * above `newFromId`. The caller's database is only read; `index` must be
 * current (ContextIndex.update, which LiveSession.detect calls first: the
 * sessions it judges again are found in it too).
 */
export function detectScoped(db: Db, index: ContextIndex, sessions: string[], newFromId: number, opts: RunOptions = {}, logEndId?: number): ScopedRun[] {
  const out: ScopedRun[] = [];
  const needs = neededContext(opts.disabled ?? []);
  const sessionless = needs.has('sessionless-records') && db.prepare('SELECT 1 FROM records WHERE id > ? AND +session IS NULL LIMIT 1').get(newFromId) !== undefined;
  const end = needs.has('log-end') ? logEndId : undefined;
  const slice = (part: string[], from: number) => detectSlice(db, index, part, { newFromId: from, logEndId: end, needs }, opts);
  if (sessions.length === 0 && sessionless) out.push(slice([], newFromId));
  for (let i = 0; i < sessions.length; i += SCOPE_CHUNK) {
    // Session-less records ride with the first slice only.
    out.push(slice(sessions.slice(i, i + SCOPE_CHUNK), i === 0 && sessionless ? newFromId : NONE_NEW));
  }
  return out;
}

interface Extra {
  /** Session-less records above this id are judged. */
  newFromId: number;
  /**
   * The record that ends the log so far: a rule that asks how long the log went
   * on after a moment (stale-writer-blocks-reconnect) must see the whole log's end.
   */
  logEndId: number | undefined;
  needs: ReadonlySet<ContextNeed>;
}

const NONE_NEW = Number.MAX_SAFE_INTEGER;

function detectSlice(db: Db, index: ContextIndex, subjects: string[], extra: Extra, opts: RunOptions): ScopedRun {
  const context = contextSessions(db, subjects, extra.needs, opts.duplicateCallWindowMs ?? DEFAULT_DETECT_OPTIONS.duplicateCallWindowMs, index);
  for (const s of subjects) context.delete(s);
  const scratch = openDb(':memory:');
  try {
    const records = copyScope(db, scratch, [...subjects, ...context], extra);
    const judged = new Set(subjects);
    const report = detect(scratch, opts);
    const findings = report.findings.filter((f) => (f.session === null ? true : judged.has(f.session)));
    const notKnowable = report.not_knowable.filter((n) => n.session !== null && judged.has(n.session));
    return { sessions: subjects, findings, notKnowable, contextSessions: context.size, records };
  } finally {
    scratch.close();
  }
}

/** Copies the sessions' records and derived rows (and every source, for evidence) into the scratch database. */
function copyScope(from: Db, to: Db, sessions: string[], extra: Extra): number {
  let records = 0;
  to.transaction(() => {
    copyRows(from, to, 'sources', 'SELECT * FROM sources', []);
    for (let i = 0; i < sessions.length; i += 500) {
      const part = sessions.slice(i, i + 500);
      const list = part.map(() => '?').join(',');
      for (const t of TABLES) {
        const n = copyRows(from, to, t, `SELECT * FROM ${t} WHERE session IN (${list})`, part);
        if (t === 'records') records += n;
      }
      // A fresh upgrade that minted one of them without presenting a session belongs to its story.
      records += copyRows(from, to, 'records', `SELECT * FROM records WHERE kind = 'upgrade' AND session IS NULL AND new_session IN (${list})`, part);
    }
    if (extra.newFromId < NONE_NEW) {
      records += copyRows(from, to, 'records', 'SELECT * FROM records WHERE id > ? AND +session IS NULL', [extra.newFromId]);
    }
    if (extra.logEndId !== undefined) records += copyRows(from, to, 'records', 'SELECT * FROM records WHERE id = ?', [extra.logEndId]);
  })();
  return records;
}

function copyRows(from: Db, to: Db, table: string, select: string, params: unknown[]): number {
  const stmt = from.prepare(select).raw();
  const columns = stmt.columns().length;
  const insert = to.prepare(`INSERT OR IGNORE INTO ${table} VALUES (${new Array(columns).fill('?').join(',')})`);
  let n = 0;
  for (const row of stmt.iterate(...params) as Iterable<unknown[]>) {
    insert.run(...row);
    n++;
  }
  return n;
}
