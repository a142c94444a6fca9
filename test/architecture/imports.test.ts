import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The stages of src/, lowest first (README "Architecture"). A module may import
// its own stage and the stages below it, never one above or beside it. Every
// top-level entry of src/ must be placed here, so that a new folder is a decision.
const STAGES: string[][] = [
  ['model', 'engine'],
  // Side by side, so none imports another: pipeline composes them, and the store receives normalized lines only.
  ['read', 'normalize', 'store'],
  // instrument writes the log a server keeps; it redacts with normalize's rules.
  ['instrument'],
  ['replay'],
  ['detect'],
  ['findings'],
  // pipeline composes the stages: read → normalize → store (in a worker thread for large inputs),
  // and a loaded database → derive → detect (pipeline/findings.ts), for every front end.
  ['pipeline'],
  ['whatif', 'render', 'live'],
  // api.ts: the pipeline for embedding (files in, a report out).
  ['api'],
  ['tui'],
  ['cli'],
  ['index'],
];
const RANK = new Map(STAGES.flatMap((names, rank) => names.map((n) => [n, rank] as const)));
const SRC = join(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Relative specifiers of static imports, re-exports and dynamic imports. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s+['"](\.[^'"]+)['"]/g), ...text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)];
  return specs.map((m) => m[1]!);
}

function resolveImport(from: string, spec: string, known: Set<string>): string | undefined {
  const base = normalize(join(dirname(from), spec)).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((c) => known.has(c));
}

const stageOf = (file: string) => relative(SRC, file).split('/')[0]!.replace(/\.tsx?$/, '');

const files = sourceFiles(SRC);
const known = new Set(files);
const graph = new Map(files.map((f) => [f, importsOf(f).map((s) => resolveImport(f, s, known)).filter((t): t is string => t !== undefined)]));

describe('the import graph of src/', () => {
  it('places every top-level folder of src/ in a stage', () => {
    const unplaced = [...new Set(files.map(stageOf))].filter((s) => !RANK.has(s));
    expect(unplaced).toEqual([]);
  });

  it('resolves every relative import to a file', () => {
    const dangling = files.flatMap((f) => importsOf(f).filter((s) => resolveImport(f, s, known) === undefined).map((s) => `${relative(SRC, f)} -> ${s}`));
    expect(dangling).toEqual([]);
  });

  it('points every import down the stages', () => {
    const upward: string[] = [];
    for (const [from, targets] of graph) {
      const a = stageOf(from);
      for (const to of targets) {
        const b = stageOf(to);
        if (a !== b && !(RANK.get(b)! < RANK.get(a)!)) upward.push(`${relative(SRC, from)} -> ${relative(SRC, to)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('keeps the engine free of the rest of resumescope', () => {
    const out = [...graph].flatMap(([from, targets]) => (stageOf(from) === 'engine' ? targets.filter((t) => stageOf(t) !== 'engine').map((t) => `${relative(SRC, from)} -> ${relative(SRC, t)}`) : []));
    expect(out).toEqual([]);
  });

  it('keeps render and the tui components off the database: they get read models, not a connection', () => {
    // render ranks above store, so the stage rule alone lets it query; without a Db handle it cannot.
    const pure = (f: string) => /^(render|tui\/components)\//.test(relative(SRC, f));
    const touching = files.filter(pure).flatMap((f) => {
      const text = readFileSync(f, 'utf8');
      const why = [
        ...graph.get(f)!.filter((t) => relative(SRC, t) === 'store/db.ts').map(() => 'imports store/db'),
        ...(/['"]better-sqlite3['"]/.test(text) ? ['imports better-sqlite3'] : []),
        ...(/\.prepare\(/.test(text) ? ['prepares SQL'] : []),
      ];
      return why.map((w) => `${relative(SRC, f)}: ${w}`);
    });
    expect(touching).toEqual([]);
  });

  it('leaves derive → detect to the pipeline: no front end wires the two itself', () => {
    const own = new Set(['pipeline/findings.ts', 'store/derive-threads.ts', 'detect/parallel.ts']);
    const wiring = files
      .filter((f) => !own.has(relative(SRC, f)) && /\b(deriveOnTwoThreads|detectOnTwoThreads)\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f));
    expect(wiring).toEqual([]);
  });

  it('keeps SQL out of the commands: they ask the store (query runs the SQL it is given)', () => {
    const asking = files
      .filter((f) => /^cli\//.test(relative(SRC, f)) && relative(SRC, f) !== 'cli/commands/query.ts' && /\.prepare\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f));
    expect(asking).toEqual([]);
  });

  it('has no import cycle, type-only imports included', () => {
    // Tarjan's strongly connected components: any component of two or more files is a cycle.
    let index = 0;
    const idx = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    const visit = (v: string): void => {
      idx.set(v, index);
      low.set(v, index++);
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!idx.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
      if (low.get(v) === idx.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(relative(SRC, w));
        } while (w !== v);
        if (component.length > 1) cycles.push(component.sort());
      }
    };
    for (const f of files) if (!idx.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });
});
