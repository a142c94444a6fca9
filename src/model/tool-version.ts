import { readFileSync } from 'node:fs';

/** resumescope's version, from its package.json (the CLI's --version; a key of the findings cache). */
export const TOOL_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
