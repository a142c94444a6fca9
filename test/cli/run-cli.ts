import { main } from '../../src/cli/main.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Runs the CLI in-process with captured output, as a user would type it. */
export async function cli(...args: string[]): Promise<CliResult> {
  let out = '';
  let err = '';
  const code = await main(['node', 'resumescope', ...args], {
    out: (s) => void (out += s),
    err: (s) => void (err += s),
    isTty: false,
  });
  return { code, out, err };
}
