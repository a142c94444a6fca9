import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeAll } from '../../model/write-all.js';
import type { Command } from 'commander';
import { lineTextResolver } from '../../detect/evidence.js';
import { applyBaseline, parseBaseline, writeBaseline } from '../../findings/baseline.js';
import { filterReport } from '../../findings/filter.js';
import { exitCodeFor } from '../../findings/gate.js';
import { explainFinding, lossNotes, renderChunks, showsLosses, type LineText } from '../../render/index.js';
import type { Finding, NodeLoss, Report } from '../../model/finding.js';
import type { FindingTable } from '../../detect/finding-table.js';
import { UsageError, useColor, writeOut, type Io } from '../io.js';
import { TOOL_VERSION } from '../../model/tool-version.js';
import {
  addInputOptions, addQuietOption, addReportOptions, addThresholdOptions, detectOptions, failOnOf, formatOf, loadConfig, positiveInt, ruleList,
  type SettingFlags,
} from '../options.js';
import { requireKnownSessions } from '../known-sessions.js';
import { sarifSizeNotes } from '../../render/sarif.js';
import { openWorkspace, type InputOptions } from '../workspace.js';
import { progressOn } from '../progress-line.js';
import { findingsOf } from '../../pipeline/findings.js';
import { htmlReaders } from '../html-readers.js';
import { lineRecordsResolver } from '../../store/line-records.js';

interface AnalyzeFlags extends InputOptions, SettingFlags {
  format: string;
  failOn?: string;
  rule: string[];
  session: string[];
  output?: string;
  baseline?: string;
  writeBaseline?: string;
  explain?: boolean;
  quiet?: boolean;
  maxFindings?: string;
  raw?: boolean;
  notKnowable: boolean;
}

export function registerAnalyze(program: Command, io: Io, done: (code: number) => void): void {
  const cmd = program
    .command('analyze')
    .description('find resumption violations in logs, with the log lines that prove each (the CI gate)')
    .argument('[paths...]', 'log files, folders, or - for stdin (plain or .gz)');
  addInputOptions(cmd);
  addThresholdOptions(cmd);
  addReportOptions(cmd);
  addQuietOption(cmd);
  cmd
    .option('--baseline <file>', 'suppress the known, accepted findings listed in this file')
    .option('--write-baseline <file>', 'write the current findings as a baseline file')
    .option('--explain', 'after the report, explain every finding in plain English')
    .option('--raw', 'text, markdown: quote each evidence line as logged (redacted) instead of a one-line summary')
    .option('--no-not-knowable', 'text, markdown: count the not-knowable rules in one line instead of listing them')
    .action(async (paths: string[], flags: AnalyzeFlags) => done(await analyze(paths, flags, io)));
}

async function analyze(paths: string[], flags: AnalyzeFlags, rawIo: Io): Promise<number> {
  const progress = progressOn(rawIo.errStream ?? { write: () => true }, { quiet: flags.quiet });
  const io = progress.wrap(rawIo);
  const config = loadConfig(flags.config, io, { name: 'analyze', unread: ['retention'] });
  const format = formatOf(flags.format);
  const rules = ruleList(flags.rule);
  const failOn = failOnOf(flags, config);
  const ws = await openWorkspace(paths, flags, io, progress.listener);
  try {
    let report: Report<FindingTable> = await findingsOf(ws.db, detectOptions(flags, config), {
      onProgress: progress.listener,
      onDerived: () => requireKnownSessions(ws.db, flags.session),
      cached: flags.db !== undefined,
    });
    progress.listener?.({ type: 'stage', stage: 'report' });
    report = filterReport(report, { ...(rules.length && { rules }), ...(flags.session.length && { sessions: flags.session }) });
    if (flags.baseline !== undefined) {
      const applied = applyBaseline(report, readBaseline(flags.baseline));
      report = applied.report;
      if (applied.suppressed > 0) io.err(`resumescope: ${applied.suppressed} known finding(s) suppressed by ${flags.baseline}\n`);
    }
    if (flags.writeBaseline !== undefined) {
      writeFileSync(flags.writeBaseline, JSON.stringify(writeBaseline(report), null, 2) + '\n');
      io.err(`resumescope: wrote ${report.findings.length} finding(s) to ${flags.writeBaseline}\n`);
    }
    const lineText = lineTextResolver(ws.db);
    const cwd = process.cwd();
    // No default here: each format has its own, and SARIF has none (every finding) unless the flag is given.
    const maxFindings = flags.maxFindings === undefined ? undefined : positiveInt(flags.maxFindings, '--max-findings');
    const chunks = renderChunks(format, report, {
      lineText, lineRecords: lineRecordsResolver(ws.db), raw: flags.raw, cwd, notKnowable: flags.notKnowable,
      color: flags.output === undefined && useColor(io), toolVersion: TOOL_VERSION, failOn, unusable: ws.unusableInputs,
      ...(maxFindings !== undefined && { maxFindings }),
      ...(format === 'html' && htmlReaders(ws.db)),
    });
    // The HTML report explains every rule it shows; text appended after </html> would be lost.
    const explained = flags.explain && format !== 'html' && report.findings.length > 0 ? explanations(report.findings, lineText, cwd, report.summary.lost_sessions) : [];
    progress.finish(`${report.findings.length} finding(s)`);
    await writeChunks([chunks, explained], flags.output, io);
    // A pipeline that keeps the JSON, SARIF or JUnit report still hears of a node's restart in its log.
    if (!showsLosses(format)) for (const line of lossNotes(report)) io.err(line);
    // What the SARIF report left out, or that code scanning would refuse it: said where the run's log goes, not in the report.
    if (format === 'sarif') for (const line of sarifSizeNotes(report.findings, maxFindings)) io.err(line);
    return exitCodeFor(report, failOn, { unusableInput: ws.unusable });
  } finally {
    ws.db.close();
  }
}

/** --explain: every finding explained, in timeline order, one at a time. */
function* explanations(findings: Iterable<Finding>, lineText: LineText, cwd: string, losses: readonly NodeLoss[] | undefined): Generator<string> {
  let first = true;
  for (const f of findings) {
    yield `${first ? '\n' : '\n\n'}${explainFinding(f, lineText, cwd, losses)}`;
    first = false;
  }
  yield '\n';
}

function readBaseline(path: string) {
  try {
    return parseBaseline(JSON.parse(readFileSync(path, 'utf8')));
  } catch (err) {
    throw new UsageError(`${path}: not a usable baseline (${(err as Error).message})`);
  }
}

/** The report to -o's file (created or emptied first, as before) or to stdout, one piece at a time. */
async function writeChunks(parts: Iterable<string>[], output: string | undefined, io: Io): Promise<void> {
  if (output === undefined) {
    for (const part of parts) await writeOut(io, part);
    return;
  }
  let fd: number;
  try {
    fd = openSync(output, 'w');
  } catch (err) {
    throw new UsageError(`cannot write the report to ${output}: ${(err as Error).message}`);
  }
  try {
    for (const part of parts) for (const chunk of part) writeAll(fd, chunk);
  } catch (err) {
    // A report cut short (a full disk) must not be left where a CI step collects it as if whole.
    closeSync(fd);
    rmSync(output, { force: true });
    throw new UsageError(`cannot write the report to ${output}: ${(err as Error).message} (the part written was removed)`);
  }
  closeSync(fd);
}
