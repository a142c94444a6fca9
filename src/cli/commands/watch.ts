import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { Option, type Command } from 'commander';
import { LossAnnouncer } from '../../live/loss-announcer.js';
import { LiveLosses } from '../../live/losses.js';
import { FindingLines } from '../../live/ndjson-out.js';
import { runLive } from '../../live/runner.js';
import { LiveInputs } from '../../live/inputs.js';
import { LiveSession } from '../../live/session.js';
import { markFollowedUnfinished, noteFollowedAtEnd } from '../../live/unfinished-inputs.js';
import type { Finding } from '../../model/finding.js';
import { meetsThreshold, SEVERITIES, type FailOn } from '../../model/severity.js';
import { folderContents, isFolder, isLiveLogFileName } from '../../read/folders.js';
import { readThrough } from '../../read/read-through.js';
import { splittingOf } from '../../read/entries.js';
import { awayName, follow, STDIN_NAME, type FollowEvent } from '../../read/follow.js';
import { noLogFiles, unreadSubfoldersNote } from '../../read/sources.js';
import { EMBEDDED_DB, openDb, type Db } from '../../store/db.js';
import { sourceHeld } from '../../store/source-names.js';
import { detailLoader } from '../../tui/wire/detail.js';
import { printable } from '../../model/printable.js';
import { lossNote } from '../../render/index.js';
import { DashboardModelSource } from '../../tui/wire/store-model.js';
import { lineOpener, type LineOpener } from '../../tui/wire/open-line.js';
import { rejectedLoader } from '../../tui/wire/rejected.js';
import { cannotDrawDashboard, openKeyboard } from '../../tui/wire/keyboard.js';
import type { RunningDashboard } from '../../tui/wire/terminal.js';
import { UsageError, type Io } from '../io.js';
import { addInputOptions, addThresholdOptions, detectOptions, duration, loadConfig, type SettingFlags } from '../options.js';
import { upgradeTold, type InputOptions } from '../workspace.js';
import { InputTeller } from '../watch-inputs.js';
import { fullScreenRun, type FullScreenRun } from '../full-screen.js';

/** Why a run stopped: a bound it was given, stdin's end, a signal, a violation, the reader of its output gone, the user. */
type RunEnd = 'idle' | 'exit-after' | 'eof' | 'signal' | 'fail-on' | 'output' | 'quit';

/** Ends after which a guard's inputs are judged: the run went as far as it was meant to (or was told to stop, as a CI step's timeout does). */
const GATE_ENDS = new Set<RunEnd>(['idle', 'exit-after', 'eof', 'signal']);

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
  const controller = new AbortController();
  // Sources whose path now holds another file: `o` must not open the new one at an old line.
  const replaced = new Set<string>();
  // What they are quoted as from then on in the NDJSON: a line of theirs is no longer a line of the path's file.
  const away = new Map<string, string>();
  let code = 0;
  let dashboard: RunningDashboard | undefined;
  let lines: FindingLines | undefined;
  let model: DashboardModelSource | undefined;
  let openLine: LineOpener | undefined;
  let fullScreen: FullScreenRun | undefined;
  /** How the run ended: the first reason to stop. */
  let ended: RunEnd | undefined;
  const stop = (exitCode: number, why: RunEnd) => {
    // The run's last round announces findings after the idle or exit-after timer began the stop: the exit
    // code is the worst of what was announced, not the code the timer asked for.
    code = Math.max(code, exitCode);
    if (controller.signal.aborted) return;
    ended = why;
    controller.abort();
    dashboard?.stop();
  };

  // Output: the dashboard, or one NDJSON line per new finding.
  if (keys !== undefined) {
    model = new DashboardModelSource(db, live.book, {
      sources: [...rotated, ...targets].map((t) => (t === '-' ? STDIN_NAME : t)),
      mode: 'live',
      sharedSessionStore: options.sharedSessionStore,
    });
    const source = model;
    openLine = lineOpener(db, { replaced: (file) => replaced.has(file) });
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
      () => stop(code, 'quit'),
      () => stop(2, 'quit'),
    );
  } else {
    // A reader that went away ends the run as an ordinary end; any other write error was said by io.ts, and exits 2.
    lines = new FindingLines(
      process.stdout,
      (err) => stop(err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED' ? 0 : 2, 'output'),
      (file) => away.get(file) ?? file,
    );
  }
  // Beside the NDJSON, each loss of sessions on stderr, as `analyze` does beside a JSON report (a loss is no finding).
  const losses = lines === undefined ? undefined : new LossTeller(db, options.sharedSessionStore ?? false, io);
  const told = new InputTeller(live, inputs, io, { ...(flags.db !== undefined && { dbPath: flags.db }), replaced: (source) => replaced.has(source) });
  const announce = (fresh: Finding[]) => {
    for (const f of fresh) {
      if (controller.signal.aborted && code !== 0) return;
      lines?.print(f);
      if (meetsThreshold(f.severity, flags.failOn)) {
        io.err(`resumescope: stopped: ${f.rule} (${f.severity}) in session ${printable(f.session ?? '-')} is at or above --fail-on ${flags.failOn}\n`);
        return stop(1, 'fail-on');
      }
    }
  };

  // Bounded runs and signals.
  const timers: NodeJS.Timeout[] = [];
  if (exitAfterMs !== undefined) timers.push(setTimeout(() => stop(0, 'exit-after'), exitAfterMs));
  let idle: NodeJS.Timeout | undefined;
  const resetIdle = () => {
    if (idleExitMs === undefined) return;
    clearTimeout(idle);
    idle = setTimeout(() => stop(0, 'idle'), idleExitMs);
  };
  resetIdle();
  // The rate in the header moves with the clock, lines or not; and a reading of the losses that the rate limit
  // put off (a 404 that came within 5 s of the last reading) is done once it may be, though no line comes.
  timers.push(
    setInterval(() => {
      model?.refreshLosses();
      losses?.tell();
      dashboard?.notify();
    }, 1000),
  );
  const onSignal = () => stop(code, 'signal');
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    const followed = follow(targets, { signal: controller.signal, ...folderDiscovery(paths, flags.recursive ?? false, inputs) });
    const readFirst = readThrough(rotated, { signal: controller.signal, ...splittingOf(flags), onError: (file, why) => io.err(`resumescope: ${printable(`${file}: ${why}`)}\n`) });
    await runLive(live, concatEvents(readFirst, followed), {
      signal: controller.signal,
      onLines: (source) => {
        resetIdle();
        // Beside the NDJSON, as analyze does; the dashboard's header counts them.
        if (lines !== undefined) told.lines(source);
      },
      onRound: (round) => {
        model?.refresh(round.sessions);
        losses?.tell();
        announce(round.fresh);
        dashboard?.notify();
      },
      // The path holds another file from the rotation on, not from the renamed file's end (its grace period after):
      // `o` must not open the new file at a line of the old one, and the header says so when it happens.
      onMoved: (source) => {
        replaced.add(source);
        away.set(source, awayName(source, 'rotated'));
        if (model !== undefined) {
          model.noteSourceEvent(source, 'rotated, new file followed');
          dashboard?.notify();
        }
      },
      // Stdin alone: its end is the end of the log (the dashboard stays up to be looked at).
      onEnd: (source, why) => {
        if (why === 'stopped') return;
        if (why !== 'eof') replaced.add(source);
        if ((why === 'rotated' || why === 'truncated') && !away.has(source)) away.set(source, awayName(source, why));
        if (why === 'truncated' && model !== undefined) {
          model.noteSourceEvent(source, `${why}, new file followed`);
          dashboard?.notify();
        }
        if (dashboard === undefined && source === STDIN_NAME && targets.every((t) => t === '-')) stop(0, 'eof');
      },
    });
    if (dashboard !== undefined) await dashboard.done;
    // The end-of-run notes below are for the user's own screen.
    fullScreen?.restore();
    const caughtUp = ended === 'idle' || ended === 'eof';
    // Every input as analyze reports it; a guard whose inputs gave nothing to judge must not pass (log-format.md).
    // Stopped at a violation (or by the user, or by the reader going away), the run was cut short: it says, and keeps its code.
    const unusable = told.atEnd();
    // Kept batch by batch, a file the run stopped short of its end is in the --db in part: said now, and to later commands.
    if (flags.db !== undefined) {
      for (const c of noteFollowedAtEnd(db, [...rotated, ...targets], live.notEnded())) {
        io.err(`resumescope: ${printable(`${c.name}: ${c.reason} ${flags.db}, which says so to every later command on it (exit 2)`)}\n`);
      }
    }
    if (unusable && flags.failOn !== 'never' && ended !== undefined && GATE_ENDS.has(ended)) code = Math.max(code, 2);
    losses?.tellAtEnd(caughtUp);
    return code;
  } finally {
    fullScreen?.restore();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    for (const t of timers) clearTimeout(t);
    clearTimeout(idle);
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

/** The losses of a followed log, told on stderr: each when first shown, and those grown since at the end. */
class LossTeller {
  private readonly losses: LiveLosses;
  private readonly announcer = new LossAnnouncer();

  constructor(
    db: Db,
    sharedSessionStore: boolean,
    private readonly io: Io,
  ) {
    this.losses = new LiveLosses(db, { live: true, sharedSessionStore });
  }

  tell(): void {
    this.losses.refresh();
    for (const loss of this.announcer.fresh(this.losses.shown)) this.io.err(lossNote(loss));
  }

  /** Caught up, a node that logged nothing more is silent, not late; otherwise a silent node's loss is still held back. */
  tellAtEnd(caughtUp: boolean): void {
    this.losses.refresh({ caughtUp });
    for (const loss of this.announcer.untold(this.losses.shown)) this.io.err(lossNote(loss, 'by the end of the run'));
  }
}

/**
 * Following starts at the top of each file: a --db that holds these files from an earlier
 * run would get every record twice (and findings such as session-id-reuse for each).
 */
function refuseFollowedBefore(db: Db, targets: string[], dbPath: string | undefined): void {
  const held = sourceHeld(db);
  for (const t of targets) {
    const name = t === '-' ? STDIN_NAME : t;
    if (held(name)) {
      throw new UsageError(`${dbPath}: already holds ${name} from an earlier run; following it again would store its lines twice. Use a new --db file.`);
    }
  }
}

/**
 * Files to follow: `-`, files (present or not), and the live log files a folder holds now (its
 * subfolders' too with --recursive; without it, those holding logs are named on stderr), then those
 * that appear in it later (folderDiscovery). A folder's rotated generations no longer grow: they are
 * read once, first (`rotated`, oldest first), and each rotation during the run is seen as it happens.
 */
function followTargets(paths: string[], recursive: boolean, io: Io, inputs: LiveInputs): { targets: string[]; rotated: string[]; empty: string[] } {
  const out: string[] = [];
  const rotated: string[] = [];
  /** Folders with no log file yet. */
  const empty: string[] = [];
  for (const p of paths) {
    if (p !== '-' && isFolder(p)) {
      const { files, unread, unlistable } = folderContents(p, { recursive, which: 'all' });
      const live: string[] = [];
      for (const f of files) (isLiveLogFileName(basename(f)) ? live : rotated).push(f);
      // An empty folder is followed for the files that appear in it (folderDiscovery), as one that does not exist yet is;
      // one whose logs are all rotated generations, or in subfolders not read, is refused: they are what was meant.
      if (live.length === 0 && (files.length > 0 || unread.length > 0)) throw new UsageError(noLogFiles(p, unread, 'follow'));
      if (live.length === 0) empty.push(p);
      inputs.foundIn(p, files);
      if (unread.length > 0) io.err(`resumescope: ${printable(unreadSubfoldersNote({ folder: p, subfolders: unread }))}\n`);
      for (const u of unlistable) io.err(`resumescope: ${printable(`${u.path}: cannot read folder; not followed`)}\n`);
      out.push(...live);
    } else if (/\.gz$/i.test(p)) {
      throw new UsageError(`${p}: a compressed file cannot be followed as it grows; read it with resumescope analyze`);
    } else {
      out.push(p);
    }
  }
  return { targets: [...new Set(out)], rotated: [...new Set(rotated)], empty };
}

/** The rotated generations' lines, then the followed files': one stream of events for the live run. */
async function* concatEvents(...parts: AsyncGenerator<FollowEvent>[]): AsyncGenerator<FollowEvent> {
  for (const part of parts) yield* part;
}

/**
 * A folder's live files as they are now: files (and, with -r, pod folders) that appear later are followed too.
 * A path that does not exist yet may become a folder (a pod's log folder before the pod starts): followed as
 * a file meanwhile, it is asked about as a folder too.
 */
function folderDiscovery(paths: string[], recursive: boolean, inputs: LiveInputs): { discover?: () => string[]; discoverIn?: string[] } {
  const folders = paths.filter((p) => p !== '-' && (isFolder(p) || !existsSync(p)));
  if (folders.length === 0) return {};
  return {
    discoverIn: folders,
    discover: () =>
      folders.flatMap((f) => {
        try {
          if (!isFolder(f)) return [];
          // Asked every second: no walk of the subfolders it does not read, whose note was given at the start.
          const files = folderContents(f, { recursive, which: 'live', unread: false }).files;
          inputs.foundIn(f, files);
          return files;
        } catch {
          return []; // the folder went away: what it held is still followed
        }
      }),
  };
}
