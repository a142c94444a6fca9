import { inMemory } from '../../findings/recount.js';
import type { Command } from 'commander';
import { findingsOf } from '../../pipeline/findings.js';
import { sourceNames } from '../../store/source-names.js';
import { FindingBook } from '../../live/finding-book.js';
import { sessionIds } from '../../store/session-timeline.js';
import { detailLoader } from '../../tui/wire/detail.js';
import { DashboardModelSource } from '../../tui/wire/store-model.js';
import { lineOpener } from '../../tui/wire/open-line.js';
import { rejectedLoader } from '../../tui/wire/rejected.js';
import { cannotDrawDashboard, openKeyboard, type Keyboard } from '../../tui/wire/keyboard.js';
import type { FullScreen } from '../../tui/wire/screen.js';
import { fullScreenRun } from '../full-screen.js';
import type { Io } from '../io.js';
import { addInputOptions, addThresholdOptions, detectOptions, loadConfig, type SettingFlags } from '../options.js';
import { openWorkspace, type InputOptions } from '../workspace.js';

type TuiFlags = InputOptions & SettingFlags;

export function registerTui(program: Command, io: Io, done: (code: number) => void): void {
  const cmd = program
    .command('tui')
    .description('explore recorded logs in the dashboard: findings, sessions, charts, and each session as lanes')
    .argument('[paths...]', 'log files, folders, or - for stdin (plain or .gz); or none with --db');
  addInputOptions(cmd);
  addThresholdOptions(cmd);
  cmd.action(async (paths: string[], flags: TuiFlags) => done(await tui(paths, flags, io)));
}

async function tui(paths: string[], flags: TuiFlags, io: Io): Promise<number> {
  // Ink needs a terminal to draw on and to read keys from; a pipe gets a report instead.
  if (!process.stdout.isTTY || !process.stdin.isTTY || paths.includes('-')) {
    io.err(
      'resumescope tui: the dashboard needs a terminal on stdin and stdout (and cannot read the log from stdin).\n' +
        `For a report, run: resumescope analyze ${paths.join(' ') || '--db FILE'}\n`,
    );
    return 2;
  }
  const cannotDraw = cannotDrawDashboard(process.env);
  if (cannotDraw !== undefined) {
    io.err(`resumescope tui: ${cannotDraw}.\nFor a report, run: resumescope analyze ${paths.join(' ') || '--db FILE'}\n`);
    return 2;
  }
  const options = detectOptions(flags, loadConfig(flags.config, io, { name: 'tui', unread: ['failOn', 'retention'] }));
  const keys = openKeyboard(false)!;
  const { screen, io: heldIo, restore } = fullScreenRun(io);
  const signals = onSignalsRestoring(restore);
  try {
    return await explore(paths, flags, options, heldIo, keys, screen, restore);
  } finally {
    signals.off();
    keys.close();
    restore();
  }
}

async function explore(
  paths: string[],
  flags: TuiFlags,
  options: ReturnType<typeof detectOptions>,
  io: Io,
  keys: Keyboard,
  screen: FullScreen,
  restore: () => void,
): Promise<number> {
  // A large log takes a while to read: say so rather than leave the screen blank. q or ctrl+c quits
  // at once: the load has nothing to finish (a one-off database is removed at exit, and a --db file
  // keeps what it had, its open transaction rolled back, as when ingest is interrupted).
  // ink and react load only to draw (tui/wire/keyboard.ts says why).
  const { showLoading, startDashboard } = await import('../../tui/wire/terminal.js');
  const loading = showLoading(screen.stdout, keys, (how) => {
    restore();
    process.exit(how === 'q' ? 0 : EXIT_INTERRUPTED);
  });
  let ws;
  try {
    // The dashboard stays open while logs rotate: it keeps the lines it quotes.
    ws = await openWorkspace(paths, { ...flags, copyLines: true }, io, (e) => {
      if (e.type === 'lines') loading.progress(e.source, e.lines);
    });
    await loading.judging();
  } catch (err) {
    await loading.close();
    throw err;
  }
  try {
    let source;
    try {
      const report = inMemory(await findingsOf(ws.db, options, { cached: flags.db !== undefined }));
      const book = new FindingBook();
      const sessions = sessionIds(ws.db);
      book.apply(sessions, report.findings);
      const names = ws.sources.length > 0 ? ws.sources.map((s) => s.name) : sourceNames(ws.db);
      source = { book, model: new DashboardModelSource(ws.db, book, { sources: names, mode: 'recorded', sharedSessionStore: options.sharedSessionStore }) };
      source.model.refresh(sessions);
    } finally {
      // Closed only now, and the dashboard drawn in the same turn: no blank screen in between.
      await loading.close();
    }
    const model = source.model;
    const openLine = lineOpener(ws.db);
    try {
      const extras = { loadRejected: rejectedLoader(ws.db), openLine };
      await startDashboard(() => model.model(), detailLoader(ws.db, source.book), keys, extras, screen.stdout).done;
    } finally {
      // The lines `o` wrote out of the store: log text, not left behind.
      openLine.dispose();
    }
    return ws.unusable ? 2 : 0;
  } finally {
    ws.db.close();
  }
}

/** Ctrl+c typed while the log loads: the status of an interrupted command (128 + SIGINT). */
const EXIT_INTERRUPTED = 130;

/**
 * SIGINT, SIGTERM or SIGHUP from outside: the terminal is restored, then the signal is raised again,
 * so the process ends as it would have (ink's own exit hook then draws into the closed screen: nothing).
 */
function onSignalsRestoring(restore: () => void): { off(): void } {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const handler = (signal: NodeJS.Signals) => {
    off();
    restore();
    process.kill(process.pid, signal);
  };
  const off = () => {
    for (const s of signals) process.off(s, handler);
  };
  for (const s of signals) process.on(s, handler);
  return { off };
}
