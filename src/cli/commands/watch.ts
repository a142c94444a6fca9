import { existsSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { LossTeller } from '../../live/loss-teller.js';
import { FindingLines } from '../../live/ndjson-out.js';
import { LiveInputs } from '../../live/inputs.js';
import { LiveSession } from '../../live/session.js';
import { markFollowedUnfinished, noteFollowedAtEnd } from '../../live/unfinished-inputs.js';
import { WatchRun } from '../../live/watch-run.js';
import { SEVERITIES, type FailOn } from '../../model/severity.js';
import { splittingOf } from '../../read/entries.js';
import { STDIN_NAME } from '../../read/follow.js';
import { EMBEDDED_DB, openDb } from '../../store/db.js';
import { detailLoader } from '../../tui/wire/detail.js';
import { printable } from '../../model/printable.js';
import { lossNote } from '../../render/index.js';
import { DashboardModelSource } from '../../tui/wire/store-model.js';
import { lineOpener, type LineOpener } from '../../tui/wire/open-line.js';
import { rejectedLoader } from '../../tui/wire/rejected.js';
import { cannotDrawDashboard, openKeyboard } from '../../tui/wire/keyboard.js';
import type { RunningDashboard } from '../../tui/wire/terminal.js';
import type { Io } from '../io.js';
import { addInputOptions, addThresholdOptions, detectOptions, duration, loadConfig, type SettingFlags } from '../options.js';
import { upgradeTold, type InputOptions } from '../workspace.js';
import { InputTeller } from '../watch-inputs.js';
import { folderDiscovery, followTargets, refuseFollowedBefore } from '../watch-targets.js';
import { fullScreenRun, type FullScreenRun } from '../full-screen.js';

interface WatchFlags extends InputOptions, SettingFlags {
  format?: string;
  failOn: FailOn;
  exitAfter?: string;
  idleExit?: string;
}

export function registerWatch(program: Command, io: Io, done: (code: number) => void): void {
  const cmd = program
    .command('watch')
    .description('follow growing logs (tail -F) and report each new finding within a second: the dashboard on a terminal, NDJSON otherwise')
    .argument('<paths...>', 'log files to follow (they may not exist yet, and may be rotated or truncated), folders (their live log files, and those that appear later; -r: their subfolders\' too; they may be empty or not exist yet), or - for stdin');
  addInputOptions(cmd);
  addThresholdOptions(cmd);
  cmd
    .addOption(new Option('-f, --format <format>', 'ndjson: print each new finding as one JSON line, even on a terminal (sessions a node lost without a log line are told on stderr)').choices(['ndjson']))
    .addOption(new Option('--fail-on <severity>', 'exit 1 at the first finding at or above this severity (a soak-test guard; at the end, 2 if an input gave no record), or never').choices([...SEVERITIES, 'never']).default('never'))
    .option('--exit-after <duration>', 'stop after this long, e.g. 30s or 5m')
    .option('--idle-exit <duration>', 'stop once no line has arrived for this long')
    .action(async (paths: string[], flags: WatchFlags) => done(await watch(paths, flags, io)));
}

export async function watch(paths: string[], flags: WatchFlags, io: Io): Promise<number> {
  const options = detectOptions(flags, loadConfig(flags.config, io, { name: 'watch', unread: ['failOn', 'retention'] }));
  const exitAfterMs = flags.exitAfter !== undefined ? duration(flags.exitAfter, '--exit-after') : undefined;
  const idleExitMs = flags.idleExit !== undefined ? duration(flags.idleExit, '--idle-exit') : undefined;
  const inputs = new LiveInputs(paths);
  const { targets, rotated, empty } = followTargets(paths, flags.recursive ?? false, io, inputs);
  const readsStdin = targets.includes('-');

  // A terminal that cannot draw the dashboard (TERM=dumb) gets what a pipe gets, and is told why.
  const cannotDraw = flags.format === 'ndjson' || !io.isTty ? undefined : cannotDrawDashboard(process.env);
  if (cannotDraw !== undefined) io.err(`resumescope: ${cannotDraw}: writing findings as NDJSON (--format ndjson)\n`);
  let keys = flags.format === 'ndjson' || !io.isTty || cannotDraw !== undefined ? undefined : openKeyboard(readsStdin);
  if (flags.format !== 'ndjson' && io.isTty && cannotDraw === undefined && keys === undefined) io.err('resumescope: no terminal to read keys from: printing findings as NDJSON instead\n');
  // Piped or redirected, the dashboard is not drawn: the user who expected it is told what comes instead.
  if (flags.format === undefined && !io.isTty) io.err('resumescope: stdout is not a terminal: writing findings as NDJSON (--format ndjson)\n');
  if (keys === undefined) {
    for (const t of targets) if (t !== '-' && !existsSync(t)) io.err(`resumescope: ${t}: does not exist yet; waiting for it\n`);
    for (const p of empty) io.err(`resumescope: ${p}: no log file to follow yet; following those that appear in it\n`);
  }

  const db = flags.db === undefined ? openDb(EMBEDDED_DB) : openDb(flags.db, { onUpgrade: upgradeTold(flags.db, io) });
  try {
    refuseFollowedBefore(db, [...rotated, ...targets], flags.db);
    if (flags.db !== undefined) markFollowedUnfinished(db, [...rotated, ...targets]);
  } catch (err) {
    db.close();
    throw err;
  }
  const live = new LiveSession(db, { detect: options, ...(flags.inputFormat !== undefined && { inputFormat: flags.inputFormat }) });
  let dashboard: RunningDashboard | undefined;
  let lines: FindingLines | undefined;
  let model: DashboardModelSource | undefined;
  let openLine: LineOpener | undefined;
  let fullScreen: FullScreenRun | undefined;
  const run = new WatchRun({
    failOn: flags.failOn,
    ...(exitAfterMs !== undefined && { exitAfterMs }),
    ...(idleExitMs !== undefined && { idleExitMs }),
    stdinEndStops: keys === undefined,
    onStop: () => dashboard?.stop(),
    print: (f) => lines?.print(f),
    onViolation: (f) => io.err(`resumescope: stopped: ${f.rule} (${f.severity}) in session ${printable(f.session ?? '-')} is at or above --fail-on ${flags.failOn}\n`),
  });

  // Output: the dashboard, or one NDJSON line per new finding.
  if (keys !== undefined) {
    model = new DashboardModelSource(db, live.book, {
      sources: [...rotated, ...targets].map((t) => (t === '-' ? STDIN_NAME : t)),
      mode: 'live',
      sharedSessionStore: options.sharedSessionStore,
    });
    const source = model;
    openLine = lineOpener(db, { replaced: (file) => run.isReplaced(file) });
    // On the alternate screen; what the run says on stderr meanwhile is said once the dashboard is gone.
    // ink and react load only to draw (tui/wire/keyboard.ts says why).
    const { startDashboard } = await import('../../tui/wire/terminal.js');
    fullScreen = fullScreenRun(io);
    io = fullScreen.io;
    dashboard = startDashboard(
      () => source.model(),
      detailLoader(db, live.book, { revision: (s) => live.revision(s) }),
      keys,
      { loadRejected: rejectedLoader(db), openLine },
      fullScreen.screen.stdout,
    );
    // The user quit.
    void dashboard.done.then(
      () => run.stop(0, 'quit'),
      () => run.stop(2, 'quit'),
    );
  } else {
    // A reader that went away ends the run as an ordinary end; any other write error was said by io.ts, and exits 2.
    lines = new FindingLines(
      process.stdout,
      (err) => run.stop(err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED' ? 0 : 2, 'output'),
      (file) => run.quotedAs(file),
    );
  }
  // Beside the NDJSON, each loss of sessions on stderr, as `analyze` does beside a JSON report (a loss is no finding).
  const losses = lines === undefined ? undefined : new LossTeller(db, options.sharedSessionStore ?? false, (loss, byTheEnd) => io.err(lossNote(loss, byTheEnd ? 'by the end of the run' : undefined)));
  const told = new InputTeller(live, inputs, io, { ...(flags.db !== undefined && { dbPath: flags.db }), replaced: (source) => run.isReplaced(source) });
  const onSignal = () => run.stop(0, 'signal');
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    await run.follow(
      live,
      {
        targets,
        rotated,
        discovery: folderDiscovery(paths, flags.recursive ?? false, inputs),
        splitting: splittingOf(flags),
        onReadError: (file, why) => io.err(`resumescope: ${printable(`${file}: ${why}`)}\n`),
      },
      {
        // The rate in the header moves with the clock, lines or not; and a reading of the losses that the rate limit
        // put off (a 404 that came within 5 s of the last reading) is done once it may be, though no line comes.
        onTick: () => {
          model?.refreshLosses();
          losses?.tell();
          dashboard?.notify();
        },
        // Beside the NDJSON, as analyze does; the dashboard's header counts them.
        onLines: (source) => {
          if (lines !== undefined) told.lines(source);
        },
        onRound: (round) => {
          model?.refresh(round.sessions);
          losses?.tell();
          run.announce(round.fresh);
          dashboard?.notify();
        },
        onNewFile: (source, note) => {
          if (model === undefined) return;
          model.noteSourceEvent(source, note);
          dashboard?.notify();
        },
      },
    );
    if (dashboard !== undefined) await dashboard.done;
    // The end-of-run notes below are for the user's own screen.
    fullScreen?.restore();
    // Every input as analyze reports it; a guard whose inputs gave nothing to judge must not pass (log-format.md).
    const unusable = told.atEnd();
    // Kept batch by batch, a file the run stopped short of its end is in the --db in part: said now, and to later commands.
    if (flags.db !== undefined) {
      for (const c of noteFollowedAtEnd(db, [...rotated, ...targets], live.notEnded())) {
        io.err(`resumescope: ${printable(`${c.name}: ${c.reason} ${flags.db}, which says so to every later command on it (exit 2)`)}\n`);
      }
    }
    const code = run.exitCode(unusable);
    losses?.tellAtEnd(run.caughtUp);
    return code;
  } finally {
    fullScreen?.restore();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    run.dispose();
    await lines?.close();
    keys?.close();
    keys = undefined;
    // The lines `o` wrote out of the store: log text, not left behind.
    openLine?.dispose();
    // Stdin is ours to end: left open, it would hold the process.
    if (readsStdin) process.stdin.destroy();
    db.close();
  }
}
