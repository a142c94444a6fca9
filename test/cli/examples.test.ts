import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../src/cli/examples.js';
import { buildProgram } from '../../src/cli/main.js';
import { cli } from './run-cli.js';

// Every command's --help ends with examples; each must parse as written, and
// those that read the samples must run without a usage error.

/** A command line as a shell splits it: words, and "double-quoted" words. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

const ALL = Object.entries(EXAMPLES).flatMap(([command, list]) => list.map((e) => ({ command, ...e })));
/** The dashboard needs a terminal; watch follows files that do not exist here. */
const RUNNABLE = ALL.filter((e) => e.command !== 'tui' && e.command !== 'watch');

describe('the examples in --help', () => {
  it.each(Object.keys(EXAMPLES))('%s --help ends with its examples', async (command) => {
    const help = (await cli(command, '--help')).out;
    const tail = help.slice(help.lastIndexOf('Examples:\n'));
    expect(help.lastIndexOf('Examples:\n')).toBeGreaterThan(0);
    expect(tail.trimEnd().split('\n').filter((l) => l.startsWith('  $ ')).map((l) => l.slice(4))).toEqual(EXAMPLES[command]!.map((e) => e.line));
  });

  it('covers every command', () => {
    const program = buildProgram({ out: () => {}, err: () => {}, isTty: false }, () => {});
    expect(program.commands.map((c) => c.name()).sort()).toEqual(Object.keys(EXAMPLES).sort());
  });

  it.each(ALL.map((e) => [e.line, e] as const))('parses: %s', async (_line, e) => {
    const argv = words(e.line);
    expect(argv[0]).toBe('resumescope');
    let ran: string | undefined;
    const program = buildProgram({ out: () => {}, err: () => {}, isTty: false }, () => {});
    for (const cmd of program.commands) cmd.action(() => void (ran = cmd.name()));
    await program.parseAsync(['node', ...argv]);
    expect(ran).toBe(e.command);
  });

  describe('run on the samples', () => {
    const home = process.cwd();
    let dir: string;
    beforeAll(() => {
      // Examples that write files (-o, --db) write them here, beside a link to the samples.
      dir = mkdtempSync(join(tmpdir(), 'resumescope-examples-'));
      symlinkSync(resolve(home, 'samples'), join(dir, 'samples'));
      process.chdir(dir);
    });
    afterAll(() => {
      process.chdir(home);
      rmSync(dir, { recursive: true, force: true });
    });

    it.each(RUNNABLE.map((e) => [e.line, e] as const))('runs: %s', async (_line, e) => {
      const r = await cli(...words(e.line).slice(1));
      expect(r.err).not.toMatch(/^resumescope: (?!.*(suppressed|wrote|rejected line|lost without a log line|with log files not read))/m);
      expect([0, 1]).toContain(r.code);
      const output = words(e.line).indexOf('-o');
      if (output > 0) expect(readFileSync(words(e.line)[output + 1]!, 'utf8').length).toBeGreaterThan(0);
      else expect(r.out.length).toBeGreaterThan(0);
    });
  });
});
