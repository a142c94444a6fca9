import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// queries/ holds the SQL resumescope runs, one question per file, in three folders:
//   rules/<id>.sql   what a rule flags (one row per finding), named by its rule id;
//   facts/<name>.sql facts several rules or the engine replay read, run with their arguments;
//   reports/<name>.sql questions for `resumescope query` and the front ends.
// A name is unique across the folders, so `query dual-writer` needs no folder.
// Resolved from this module so it works from src/ and dist/.
export const QUERIES_DIR = fileURLToPath(new URL('../../queries/', import.meta.url));

export const QUERY_FOLDERS = ['reports', 'rules', 'facts'] as const;
export type QueryFolder = (typeof QUERY_FOLDERS)[number];

const cache = new Map<string, string>();

/** The file of a named query (`dual-writer` or `rules/dual-writer`), or undefined. */
export function queryPath(name: string): string | undefined {
  const candidates = name.includes('/') ? [name] : QUERY_FOLDERS.map((f) => `${f}/${name}`);
  return candidates.map((c) => `${QUERIES_DIR}${c}.sql`).find((p) => /^[a-z0-9/-]+$/i.test(name) && existsSync(p));
}

export function loadQuery(name: string): string {
  let sql = cache.get(name);
  if (sql === undefined) {
    const path = queryPath(name);
    if (path === undefined) throw new Error(`no query ${name} in ${QUERIES_DIR}`);
    sql = readFileSync(path, 'utf8');
    cache.set(name, sql);
  }
  return sql;
}

export interface NamedQuery {
  name: string;
  folder: QueryFolder;
  /** The first comment line of the file: what question it answers. */
  title: string;
}

export function listQueries(): NamedQuery[] {
  return QUERY_FOLDERS.flatMap((folder) =>
    readdirSync(`${QUERIES_DIR}${folder}`)
      .filter((f) => f.endsWith('.sql'))
      .sort()
      .map((f) => {
        const name = f.slice(0, -4);
        const first = loadQuery(`${folder}/${name}`).split('\n').find((l) => l.startsWith('--')) ?? '';
        return { name, folder, title: first.replace(/^--\s*/, '') };
      }),
  );
}
