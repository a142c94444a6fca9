import type { Command } from 'commander';
import { findingsOf } from '../../pipeline/findings.js';
import { lineTextResolver } from '../../detect/evidence.js';
import { filterReport } from '../../findings/filter.js';
import type { FindingTable } from '../../detect/finding-table.js';
import type { Report } from '../../model/finding.js';
import { reportOrder } from '../../render/common.js';
import { explainFinding, explainRule, type LineText } from '../../render/index.js';
import { RULE_IDS, isRuleId, type RuleId } from '../../detect/rules/index.js';
import { existsSync } from 'node:fs';
import { UsageError, writeOut, type Io } from '../io.js';
import { addInputOptions, addThresholdOptions, collect, detectOptions, loadConfig, ruleList, positiveInt, type SettingFlags } from '../options.js';
import { requireKnownSessions } from '../known-sessions.js';
import { nearMatches } from '../near-matches.js';
import { openWorkspace, type InputOptions } from '../workspace.js';
import { withInputNotes } from '../input-notes.js';
import { printable } from '../../model/printable.js';

interface ExplainFlags extends InputOptions, SettingFlags {
  rule: string[];
  session: string[];
  n?: string;
}

export function registerExplain(program: Command, io: Io, done: (code: number) => void): void {
  const cmd = program
    .command('explain')
    .description('explain findings in plain English: what happened, why it breaks the boundary, what the server should have done')
    .argument('[paths...]', 'log files, folders, or - for stdin (or one rule id: that rule explained; a mistyped one is named)');
  addInputOptions(cmd);
  addThresholdOptions(cmd);
  cmd
    .option('--rule <ids>', 'only findings of these rules (comma-separated, repeatable)', collect, [])
    .option('--session <ids>', 'only findings of these sessions (comma-separated, repeatable)', collect, [])
    .option('-n <number>', 'only the finding numbered #N in the text report of the same --rule/--session (1-based; those filters number their findings from 1)')
    .action(async (paths: string[], flags: ExplainFlags) => {
      const asked = paths.length === 1 && flags.db === undefined ? ruleAsked(paths[0]!) : undefined;
      if (asked !== undefined) {
        await writeOut(io, [explainRule(asked)]);
        return done(0);
      }
      const ws = await openWorkspace(paths, flags, io);
      try {
        const rules = ruleList(flags.rule);
        const only = flags.n === undefined ? undefined : positiveInt(flags.n, '-n');
        let report: Report<FindingTable> = await findingsOf(ws.db, detectOptions(flags, loadConfig(flags.config, io, { name: 'explain', unread: ['failOn', 'retention'] })), {
          onDerived: () => requireKnownSessions(ws.db, flags.session),
          cached: flags.db !== undefined,
        });
        report = filterReport(report, { ...(rules.length && { rules }), ...(flags.session.length && { sessions: flags.session }) });
        // Numbered as the text report numbers them, so "#3" names one finding in both, whether or not -n picked it.
        const total = report.findings.length;
        if (only !== undefined && only > total) throw new UsageError(`-n ${only}: ${tooFew(total, rules, flags.session)}`);
        const none = total === 0 ? ['No finding matches: nothing to explain.\n'] : [];
        const lineText = lineTextResolver(ws.db);
        // Read a finding at a time from the report's table, each written as it is explained and as the reader takes it.
        await writeOut(io, withInputNotes([...none, ...explained(report, lineText, only)], ws.unusableInputs, report.summary.rejected_lines));
        done(ws.unusable ? 2 : 0);
      } finally {
        ws.db.close();
      }
    });
}

/**
 * `explain silent-truncation`: a rule's id where no such file is asks for the rule itself. A word that is no
 * file and reads as a mistyped rule id (`dual-writr`, `404-Storm`) is told so, as `--rule` tells it, rather
 * than read as a missing log: only what looks like a path (a separator or a file extension, or `-` for stdin)
 * or is near no rule id stays an input, unusable if it cannot be read.
 */
function ruleAsked(word: string): RuleId | undefined {
  if (existsSync(word)) return undefined;
  if (isRuleId(word)) return word;
  // (`-` is stdin; a word under 3 characters is held in too many ids to name one)
  if (word.length < 3 || /[/\\]/.test(word) || /\.[A-Za-z0-9]+$/.test(word)) return undefined;
  const near = nearMatches(word, RULE_IDS);
  if (near.length === 0) return undefined;
  throw new UsageError(`unknown rule "${word}" (did you mean ${near.join(', ')}?), and no file of that name (see resumescope rules)`);
}

/** Each finding (or the one numbered `only`) explained, in the text report's order and numbering. */
function* explained(report: Report<FindingTable>, lineText: LineText, only: number | undefined): Generator<string> {
  let n = 0;
  for (const f of reportOrder(report.findings)) {
    n += 1;
    if (only !== undefined && n !== only) continue;
    yield `${n > 1 && only === undefined ? '\n\n' : ''}#${n}  ${explainFinding(f, lineText, process.cwd(), report.summary.lost_sessions)}`;
    if (only !== undefined) break;
  }
  if (report.findings.length > 0) yield '\n';
}

/** Why -n is past the end: the filters count too, since -n numbers the findings they keep (as the filtered text report does). */
function tooFew(total: number, rules: readonly string[], sessions: readonly string[]): string {
  const filters = [...(rules.length > 0 ? [`--rule ${rules.join(',')}`] : []), ...(sessions.length > 0 ? [`--session ${sessions.map(printable).join(',')}`] : [])];
  if (filters.length === 0) return total === 0 ? 'the report has no findings' : `the report has only ${total} finding${total === 1 ? '' : 's'}`;
  const match = total === 0 ? 'no finding matches' : total === 1 ? '1 finding matches' : `${total} findings match`;
  return `${match} ${filters.join(' ')}; -n counts among them (without the filters, -n numbers the whole report)`;
}
