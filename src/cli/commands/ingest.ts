import type { Command } from 'commander';
import { derive } from '../../pipeline/derived.js';
import { refreshStatistics } from '../../store/statistics.js';
import type { Io } from '../io.js';
import { addInputOptions, addQuietOption } from '../options.js';
import { progressOn } from '../progress-line.js';
import { openWorkspace, type InputOptions } from '../workspace.js';

export function registerIngest(program: Command, rawIo: Io, done: (code: number) => void): void {
  const cmd = program
    .command('ingest')
    .description('read logs into a SQLite timeline (merged by time; re-ingesting a file adds nothing)')
    .argument('<paths...>', 'log files, folders, or - for stdin (plain or .gz)');
  addQuietOption(addInputOptions(cmd)).action(async (paths: string[], flags: InputOptions & { quiet?: boolean }) => {
    const progress = progressOn(rawIo.errStream ?? { write: () => true }, { quiet: flags.quiet });
    const io = progress.wrap(rawIo);
    const ws = await openWorkspace(paths, flags, io, progress.listener);
    try {
      progress.listener?.({ type: 'stage', stage: 'derive' });
      derive(ws.db);
      // A --db file is read again by query, analyze and the front ends: ready for their planner.
      refreshStatistics(ws.db);
      progress.finish();
      for (const s of ws.sources) {
        if (s.duplicateOf !== undefined || s.readError !== undefined) continue;
        // Records, apart from the lines: a proxy or OTLP line holds several, and a batch line rejected in part some.
        const repeated = s.repeated > 0 ? `, of which ${s.repeated} repeated an earlier line` : '';
        const lines = `${s.recordLines} read, ${s.ignored} ignored${repeated}, ${s.rejected} rejected`;
        io.out(`${s.name}: ${s.records} records from ${s.lines} lines (${lines})${s.format ? ` (${s.format})` : ''}\n`);
      }
      if (flags.db === undefined) io.err('resumescope: no --db given: the timeline was built in a temporary database and is gone; pass --db FILE to keep it\n');
      done(ws.unusable ? 2 : 0);
    } finally {
      ws.db.close();
    }
  });
}
