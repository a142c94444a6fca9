import { inMemory } from '../../findings/recount.js';
import type { Command } from 'commander';
import { detectOnTwoThreads } from '../../detect/parallel.js';
import { deriveOnTwoThreads } from '../../store/derive-threads.js';
import { FindingBook } from '../../live/finding-book.js';
import { sessionIds } from '../../store/session-timeline.js';
import { detailLoader } from '../../tui/wire/detail.js';
import { DashboardModelSource } from '../../tui/wire/store-model.js';
import { lineOpener } from '../../tui/wire/open-line.js';
import { rejectedLoader } from '../../tui/wire/rejected.js';
import { openKeyboard, showLoading, startDashboard } from '../../tui/wire/terminal.js';
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

export async function tui(paths: string[], flags: TuiFlags, io: Io): Promise<number> {
  // Ink needs a terminal to draw on and to read keys from; a pipe gets a report instead.
  if (!process.stdout.isTTY || !process.stdin.isTTY || paths.includes('-')) {
    io.err(
      'resumescope tui: the dashboard needs a terminal on stdin and stdout (and cannot read the log from stdin).\n' +
        `For a report, run: resumescope analyze ${paths.join(' ') || '--db FILE'}\n`,
    );
    return 2;
  }
  const options = detectOptions(flags, loadConfig(flags.config, io));
  // A large log takes a while to read: say so rather than leave the screen blank.
  const loading = showLoading();
  let ws;
  try {
    // The dashboard stays open while logs rotate: it keeps the lines it quotes.
    ws = await openWorkspace(paths, { ...flags, copyLines: true }, io, (e) => {
      if (e.type === 'lines') loading.progress(e.source, e.lines);
    });
    await loading.judging();
  } catch (err) {
    loading.close();
    throw err;
  }
  try {
    let report;
    try {
      await deriveOnTwoThreads(ws.db);
      report = inMemory(await detectOnTwoThreads(ws.db, options));
    } finally {
      loading.close();
    }
    const book = new FindingBook();
    const sessions = sessionIds(ws.db);
    book.apply(sessions, report.findings);
    const names = ws.sources.length > 0 ? ws.sources.map((s) => s.name) : (ws.db.prepare('SELECT name FROM sources ORDER BY id').pluck().all() as string[]);
    const source = new DashboardModelSource(ws.db, book, { sources: names, mode: 'recorded', sharedSessionStore: options.sharedSessionStore });
    source.refresh(sessions);
    const keys = openKeyboard(false)!;
    const openLine = lineOpener(ws.db);
    try {
      const extras = { loadRejected: rejectedLoader(ws.db), openLine };
      await startDashboard(() => source.model(), detailLoader(ws.db, book), keys, extras).done;
    } finally {
      keys.close();
      // The lines `o` wrote out of the store: log text, not left behind.
      openLine.dispose();
    }
    return ws.unusable ? 2 : 0;
  } finally {
    ws.db.close();
  }
}
