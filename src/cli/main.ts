import { Command, CommanderError } from 'commander';
import { isStorageFailure, StoreError, storageError } from '../store/db.js';
import { printable } from '../model/printable.js';
import { registerAnalyze } from './commands/analyze.js';
import { registerExplain } from './commands/explain.js';
import { registerIngest } from './commands/ingest.js';
import { registerQuery } from './commands/query.js';
import { registerRules } from './commands/rules.js';
import { registerTimeline } from './commands/timeline.js';
import { registerTui } from './commands/tui.js';
import { registerWatch } from './commands/watch.js';
import { registerWhatif } from './commands/whatif.js';
import { addExamples } from './examples.js';
import { processIo, UsageError, type Io } from './io.js';
import { TOOL_VERSION } from '../model/tool-version.js';

/** Builds the command line; commands stay thin and report their exit code through `done`. */
export function buildProgram(io: Io, done: (code: number) => void): Command {
  const program = new Command('resumescope')
    .description('Forensic analyzer for MCP stream resumption (Last-Event-ID) and session resumption (Mcp-Session-Id)')
    .version(TOOL_VERSION)
    .showHelpAfterError('(resumescope COMMAND --help for its options)')
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .exitOverride();
  for (const register of [registerAnalyze, registerIngest, registerTimeline, registerQuery, registerExplain, registerRules, registerWhatif, registerTui, registerWatch]) {
    register(program, io, done);
  }
  for (const cmd of program.commands) addExamples(cmd);
  return program;
}

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  let code = 0;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv);
    return io.failed?.() ? 2 : code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    // A full disk or an I/O error outside an ingest (deriving, detecting, writing a --db report).
    if (isStorageFailure(err)) err = storageError(undefined, err);
    if (err instanceof UsageError || err instanceof StoreError) {
      // A message may quote a session id or a line of the log: each of its lines made printable.
      io.err(`resumescope: ${err.message.split('\n').map(printable).join('\n')}\n`);
      return 2;
    }
    throw err;
  }
}
