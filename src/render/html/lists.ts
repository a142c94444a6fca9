import type { FindingList, Report } from '../../model/finding.js';
import { groupNotKnowable, sessionLabel, truncate } from '../common.js';
import { ruleAnchor } from './anchors.js';
import { counted } from './words.js';
import { text } from './escape.js';
import type { RejectedLineView } from './options.js';

const MAX_REJECTED_SHOWN = 200;
const MAX_SESSIONS_LISTED = 200;
const FOLD_NOT_KNOWABLE_OVER = 8;
const REJECTED_CHARS = 300;

/** Per rule and reason, the sessions it applies to, each named once. */
export function notKnowableSection(report: Report<FindingList>): string {
  const groups = groupNotKnowable(report.not_knowable);
  const head = '<section id="not-knowable"><h2>Not knowable</h2>';
  if (groups.length === 0) return `${head}<p class="none">Every rule could be judged for every session.</p></section>`;
  const rows = groups.map((g) => {
    const names = g.sessions.map((x) => `<code>${text(sessionLabel(x))}</code>`);
    const listed = names.slice(0, MAX_SESSIONS_LISTED).join(', ');
    const more = g.sessions.length > MAX_SESSIONS_LISTED ? `, and ${(g.sessions.length - MAX_SESSIONS_LISTED).toLocaleString('en-US')} more` : '';
    // A few sessions are named in place; more are folded, so that one reason stays one row.
    const sessions = g.sessions.length <= 3 ? listed : `<details><summary>${text(counted(g.sessions.length, 'session'))}</summary>${listed}${more}</details>`;
    const anchor = (report.summary.by_rule[g.rule] ?? 0) > 0 ? `<a href="#${ruleAnchor(g.rule)}"><code>${text(g.rule)}</code></a>` : `<code>${text(g.rule)}</code>`;
    return `<tr><td>${anchor}</td><td>${text(g.reason)}</td><td>${sessions}</td></tr>`;
  });
  const table = `<table class="not-knowable"><thead><tr><th>rule</th><th>why it cannot be judged</th><th>sessions</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  // A proxy-only log cannot judge most rules for any session: folded, that list does not bury the findings.
  const rules = new Set(groups.map((g) => g.rule)).size;
  const body = rows.length > FOLD_NOT_KNOWABLE_OVER ? `<details><summary>${text(`${counted(rows.length, 'reason')} for ${counted(rules, 'rule')}`)}</summary>${table}</details>` : table;
  return `${head}<p class="note">The logs do not hold the facts these rules need; nothing was guessed.</p>${body}</section>`;
}

/** The lines that could not be read as records, as stored (redacted, cut), with file:line and why. */
export function rejectedSection(total: number, read: ((offset: number, limit: number) => RejectedLineView[]) | undefined): string {
  const head = `<section id="rejected"><h2>Rejected lines</h2>`;
  if (total === 0) return `${head}<p class="none">Every line was read.</p></section>`;
  if (read === undefined) return `${head}<p class="note">${text(counted(total, 'line'))} could not be read as records: <code>resumescope query rejected</code> lists them.</p></section>`;
  const lines = read(0, MAX_REJECTED_SHOWN);
  const rows = lines.map(
    (l) => `<tr><td class="where">${text(`${l.file}:${l.line}`)}</td><td>${text(l.reason)}</td><td><code>${text(truncate(l.text, REJECTED_CHARS))}</code></td></tr>`,
  );
  const more = total > lines.length ? `<p class="note">The first ${lines.length} of ${total.toLocaleString('en-US')}; all of them: <code>resumescope query rejected --db FILE</code>.</p>` : '';
  return `${head}<p class="note">${text(counted(total, 'line'))} could not be read as records; they are kept, counted and left out of every rule.</p><table class="rejected"><thead><tr><th>where</th><th>why</th><th>line</th></tr></thead><tbody>${rows.join('')}</tbody></table>${more}</section>`;
}
