import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// queries/ holds the SQL resumescope runs, one question per file, in three folders:
//   rules/<id>.sql   what a rule flags (one row per finding), named by its rule id;
//   facts/<name>.sql facts the rules or the engine replay read, some with their own arguments
//                    (a question of one rule names it in its header);
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

/** The leading comment lines of a query file: what it asks, and (a facts file) the rules that read it. */
export function queryHeader(name: string): string {
  const lines = loadQuery(name).split('\n');
  const end = lines.findIndex((l) => !l.startsWith('--'));
  return lines.slice(0, end === -1 ? lines.length : end).join('\n');
}

/** Whether a query's header names `rule` (a whole id: dual-writer is not named by dual-writer-exemptions). */
export function headerNames(header: string, rule: string): boolean {
  return new RegExp(`(?<![\\w-])${rule}(?![\\w-])`).test(header);
}

/**
 * The facts files whose header names `rule`: the questions a rule judged in its module asks
 * (test/rules/fact-headers.test.ts keeps every header naming the rules that read it).
 */
export function factsNaming(rule: string): string[] {
  return listQueries()
    .filter((q) => q.folder === 'facts' && headerNames(queryHeader(`facts/${q.name}`), rule))
    .map((q) => `facts/${q.name}`);
}

/**
 * A query file's statements. Most files are one SELECT. A query whose
 * intermediate results grow with the log builds them first, as TEMP tables
 * (`CREATE TEMP TABLE name AS …;` and their `CREATE INDEX temp.… ON name (…);`),
 * and its last statement reads them: a MATERIALIZED CTE, a window's input or an
 * automatic index is an ephemeral b-tree, and SQLite gives every one the
 * compiled default page cache (16 MB in better-sqlite3's build) whatever
 * `cache_size` says, while a TEMP table lives on the connection's temp budget.
 * At 3M lines duplicate-tool-call held ~180 MB in ephemeral tables; staged, 35 MB.
 */
export interface QueryParts {
  /** The statements that build the TEMP tables, in order. */
  stages: string[];
  /** The last statement: what the query answers. */
  select: string;
  /** The TEMP tables the stages create: dropped once the answer is read. */
  tables: string[];
}

const STAGE = /^CREATE TEMP TABLE (\w+) AS\b|^CREATE INDEX temp\.\w+ ON (\w+)\b/i;

export function queryParts(sql: string): QueryParts {
  const statements = splitStatements(sql);
  const select = statements.pop();
  if (select === undefined) throw new Error('a query with no statement');
  const tables: string[] = [];
  for (const stage of statements) {
    const m = STAGE.exec(withoutLeadingComments(stage));
    // A query file only ever builds TEMP tables before its answer: nothing it runs writes the timeline.
    if (m === null) throw new Error(`a query stage must be CREATE TEMP TABLE … AS or CREATE INDEX temp.… ON: ${stage.slice(0, 80)}`);
    if (m[1] !== undefined) tables.push(m[1]);
    else if (!tables.includes(m[2]!)) throw new Error(`a query stage indexes ${m[2]}, which no earlier stage creates`);
  }
  return { stages: statements, select, tables };
}

/** SQL statements split at top-level semicolons (not in a string, a quoted name or a comment); empty ones dropped. */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === '-' && sql[i + 1] === '-') i = endOf(sql, '\n', i + 2);
    else if (c === '/' && sql[i + 1] === '*') i = endOf(sql, '*/', i + 2) + 1;
    else if (c === "'" || c === '"' || c === '`') i = endOf(sql, c, i + 1);
    else if (c === '[') i = endOf(sql, ']', i + 1);
    else if (c === ';') {
      out.push(sql.slice(start, i));
      start = i + 1;
    }
  }
  out.push(sql.slice(start));
  return out.map((s) => s.trim()).filter((s) => withoutLeadingComments(s) !== '');
}

/** Where `token` next starts at or after `from` (a doubled quote inside a string is two strings in a row: same split). */
function endOf(sql: string, token: string, from: number): number {
  const at = sql.indexOf(token, from);
  return at === -1 ? sql.length : at;
}

function withoutLeadingComments(s: string): string {
  return s.replace(/^(\s*(--[^\n]*(\n|$)|\/\*[\s\S]*?\*\/))*\s*/, '');
}
