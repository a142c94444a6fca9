import type { Command } from 'commander';
import { Option } from 'commander';
import { timelineJsonChunks } from '../../render/timeline-json.js';
import { timelineTextChunks } from '../../render/timeline-text.js';
import { sessionTimelineOf } from '../../pipeline/derived.js';
import { writeOut, type Io } from '../io.js';
import { unknownSessionError } from '../known-sessions.js';
import { addInputOptions } from '../options.js';
import { openWorkspace, type InputOptions } from '../workspace.js';
import { withInputNotes } from '../input-notes.js';
import { lineTotals } from '../../store/source-sink.js';

export function registerTimeline(program: Command, io: Io, done: (code: number) => void): void {
  const cmd = program
    .command('timeline')
    .description("one session's story: incarnations, streams as lanes, upgrades and requests, file:line on every row")
    .argument('<session>', 'the Mcp-Session-Id')
    .argument('[paths...]', 'log files, folders, or - for stdin');
  addInputOptions(cmd)
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (session: string, paths: string[], flags: InputOptions & { format: string }) => {
      const ws = await openWorkspace(paths, flags, io);
      try {
        const t = sessionTimelineOf(ws.db, session);
        if (!t) throw unknownSessionError(ws.db, session);
        // The text says the inputs' unusable files and rejected lines as analyze's does; the JSON keeps its shape.
        await writeOut(io, flags.format === 'json' ? timelineJsonChunks(t) : withInputNotes(timelineTextChunks(t), ws.unusableInputs, lineTotals(ws.db).rejected));
        done(ws.unusable ? 2 : 0);
      } finally {
        ws.db.close();
      }
    });
}
