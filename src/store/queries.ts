import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// queries/ holds the SQL the detectors and `resumescope query` run, one
// question per file. Resolved from this module so it works from src/ and dist/.
export const QUERIES_DIR = fileURLToPath(new URL('../../queries/', import.meta.url));

const cache = new Map<string, string>();

export function loadQuery(name: string): string {
  let sql = cache.get(name);
  if (sql === undefined) {
    sql = readFileSync(`${QUERIES_DIR}${name}.sql`, 'utf8');
    cache.set(name, sql);
  }
  return sql;
}

export interface NamedQuery {
  name: string;
  /** The first comment line of the file: what question it answers. */
  title: string;
}

export function listQueries(): NamedQuery[] {
  return readdirSync(QUERIES_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -4);
      const first = loadQuery(name).split('\n').find((l) => l.startsWith('--')) ?? '';
      return { name, title: first.replace(/^--\s*/, '') };
    });
}
