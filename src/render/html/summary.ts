import { exitCodeFor } from '../../findings/gate.js';
import type { FindingList, Report } from '../../model/finding.js';
import { RULE_IDS, ruleOf } from '../../detect/rules/index.js';
import type { FailOn } from '../../model/severity.js';
import type { UnusableInput } from '../../model/unusable-input.js';
import { countBySeverity, noProtocolVersionLogged, SEVERITIES_DESCENDING, unusableHeadline } from '../common.js';
import { counted } from './words.js';
import { text } from './escape.js';
import { ruleAnchor } from './anchors.js';
import { evidenceItem, type LineTable } from './findings.js';
import { LOSSES_INTRO, LOSSES_TITLE, lossFollowing, lossHeadline, moreLosses, shownLosses } from '../node-losses.js';

/** The counts a reader takes in first: the gate, records and sessions, findings by severity and by rule, versions, nodes. */
export function summarySection(report: Report<FindingList>, failOn: FailOn, lines: LineTable, unusable: readonly UnusableInput[] = []): string {
  const s = report.summary;
  const counts = countBySeverity(report.findings);
  const failed = exitCodeFor(report, failOn) === 1;
  const found = text(report.findings.length === 0 ? 'no findings' : counted(report.findings.length, 'finding'));
  const gate =
    unusable.length > 0
      ? `<p class="gate fail"><strong>FAIL</strong> ${text(unusableHeadline(unusable))} · ${found} · gate: fail on ${text(failOn)}</p><ul>${unusable
          .map((u) => `<li><code>${text(u.name)}</code>: ${text(u.reason)}</li>`)
          .join('')}</ul>`
      : `<p class="gate ${failed ? 'fail' : 'pass'}"><strong>${failed ? 'FAIL' : 'PASS'}</strong> ${found} · gate: fail on ${text(failOn)}${failed ? ' (analyze exits 1)' : ''}</p>`;
  const tiles = [
    tile('records', s.records),
    tile('sessions', s.sessions),
    tile('findings', report.findings.length),
    ...SEVERITIES_DESCENDING.map((sev) => tile(sev, counts[sev], `sev-${sev}${counts[sev] === 0 ? ' zero' : ''}`)),
    tile('rejected lines', s.rejected_lines, s.rejected_lines > 0 ? 'warn' : ''),
    tile('ignored lines', s.ignored_lines),
    // of the ignored, those a shipper delivered twice (read once: normalize/repeated-lines.ts)
    ...(s.repeated_lines ? [tile('of them repeated lines', s.repeated_lines)] : []),
  ];
  return `<section id="summary"><h2>Summary</h2>${gate}<ul class="tiles">${tiles.join('')}</ul>
<div class="columns">${byRuleTable(report)}${versionsTable(s.protocol_versions ?? {}, noProtocolVersionLogged(report))}${nodesTable(s.nodes)}</div>${lossesBlock(report, lines)}</section>`;
}

/** What many findings may follow from (render/node-losses.ts), each loss with the lines that bound it. */
function lossesBlock(report: Report<FindingList>, lines: LineTable): string {
  const { shown, more } = shownLosses(report);
  if (shown.length === 0) return '';
  const items = shown.map((loss) => {
    const following = lossFollowing(report.findings, loss);
    const quoted = loss.evidence.map((ref) => evidenceItem(lines, lines.indexOf(ref)));
    const since = following === undefined ? '' : `<p class="note">findings on these sessions since: ${text(following)}</p>`;
    return `<li><p class="msg">${text(lossHeadline(loss))}</p>${since}<ol class="evidence">${quoted.join('')}</ol></li>`;
  });
  const rest = more > 0 ? `<p class="note">${text(moreLosses(more))}</p>` : '';
  // A sentence of its own here, where the other formats put it in brackets after the title.
  const intro = `${LOSSES_INTRO[0]!.toUpperCase()}${LOSSES_INTRO.slice(1)}`;
  return `<div class="losses"><h3>${text(LOSSES_TITLE)}</h3><p class="note">${text(intro)}</p><ul>${items.join('')}</ul>${rest}</div>`;
}

function tile(label: string, n: number, cls = ''): string {
  return `<li class="tile ${cls}"><span class="n">${n.toLocaleString('en-US')}</span> <span class="l">${text(label)}</span></li>`;
}

function byRuleTable(report: Report<FindingList>): string {
  // In the order the findings section lists them: gravest first, then the catalogue's order.
  const fired = RULE_IDS.filter((id) => (report.summary.by_rule[id] ?? 0) > 0);
  const ordered = SEVERITIES_DESCENDING.flatMap((sev) => fired.filter((id) => ruleOf(id).severity === sev));
  const rows = ordered.map((id) => {
    const meta = ruleOf(id);
    return `<tr><td><a href="#${ruleAnchor(id)}"><code>${text(id)}</code></a></td><td><span class="badge sev-${meta.severity}">${meta.severity}</span></td><td class="num">${report.summary.by_rule[id]!.toLocaleString('en-US')}</td><td>${text(meta.summary)}</td></tr>`;
  });
  const body = rows.length ? rows.join('') : '<tr><td colspan="4">no rule fired</td></tr>';
  return `<table class="by-rule"><caption>Findings by rule</caption><thead><tr><th>rule</th><th>severity</th><th>count</th><th>what it catches</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** `noneLogged`: no record logged a version (render/common.ts, noProtocolVersionLogged). */
function versionsTable(versions: Record<string, number>, noneLogged: boolean): string {
  const keys = Object.keys(versions).sort();
  const rows = keys.map((k) => `<tr><td><code>${text(k)}</code></td><td class="num">${versions[k]!.toLocaleString('en-US')}</td></tr>`);
  const note = noneLogged ? '<p class="note">No protocol version was logged: the protocol-revision rules did not apply.</p>' : '';
  return `<div><table><caption>Sessions by protocol version</caption><thead><tr><th>version</th><th>sessions</th></tr></thead><tbody>${rows.join('') || '<tr><td colspan="2">none</td></tr>'}</tbody></table>${note}</div>`;
}

function nodesTable(nodes: Report['summary']['nodes']): string {
  const rows = Object.keys(nodes)
    .sort()
    .map((name) => {
      const n = nodes[name]!;
      const skew = n.skew_ms === undefined ? '' : `${n.skew_ms > 0 ? '+' : ''}${n.skew_ms} ms`;
      return `<tr><td><code>${text(name)}</code></td><td class="num">${n.records.toLocaleString('en-US')}</td><td class="num">${text(skew)}</td></tr>`;
    });
  return `<table><caption>Nodes</caption><thead><tr><th>node</th><th>records</th><th>clock skew</th></tr></thead><tbody>${rows.join('') || '<tr><td colspan="3">no node named</td></tr>'}</tbody></table>`;
}
