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
  // render is the last stage of the flow: findings and read models in, text out. Below pipeline, so that
  // no renderer can run the analysis (and see the check on its value imports below).
  ['render'],
  // pipeline composes the stages: read → normalize → store (in a worker thread for large inputs),
  // and a loaded database → derive → detect (findings.ts, derived.ts), for every front end.
  ['pipeline'],
  // The front ends that judge: the log twice (whatif), batch by batch (live); both through pipeline/.
  ['whatif', 'live'],
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

/** The import and re-export statements of a file (up to its specifier), and its dynamic imports. */
const STATEMENT = /(?:^|\n)\s*((?:import|export)\b[^'"]*?)\bfrom\s+['"](\.[^'"]+)['"]/g;
const DYNAMIC = /\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/**
 * The names a file takes as values from each module it imports (`*` for a namespace or a dynamic import):
 * `import type` and `type X` specifiers take none.
 */
function valueImportsOf(file: string): { spec: string; names: string[] }[] {
  const text = readFileSync(file, 'utf8');
  const statics = [...text.matchAll(STATEMENT)].flatMap((m) => {
    const head = m[1]!.replace(/\s+/g, ' ').trim();
    if (/^(import|export) type\b/.test(head)) return [];
    if (/\* as \w+|^export \*/.test(head)) return [{ spec: m[2]!, names: ['*'] }];
    const braced = /\{([^}]*)\}/.exec(head)?.[1] ?? '';
    const names = braced.split(',').map((n) => n.trim()).filter((n) => n !== '' && !n.startsWith('type ')).map((n) => n.split(/\s+as\s+/)[0]!);
    // A default import (`import x from`, `import x, { … } from`) is a value too.
    const byDefault = /^import \w+\s*(,|$)/.test(head) ? ['default'] : [];
    return names.length + byDefault.length > 0 ? [{ spec: m[2]!, names: [...byDefault, ...names] }] : [];
  });
  return [...statics, ...[...text.matchAll(DYNAMIC)].map((m) => ({ spec: m[1]!, names: ['*'] }))];
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

  it('keeps render to findings and read models: it takes no value from the stages before it, nor from the pipeline', () => {
    // Types of the store's read models are its inputs; a value (a function, a query, the rules) would let it analyse.
    const before = new Set(['read', 'normalize', 'store', 'replay', 'detect', 'pipeline']);
    // The rule catalogue (ids, severities, texts) lives with the detectors for now: a renderer loads them to name a rule.
    const allowed = new Set(['detect/rules/index.ts']);
    const reaching = files
      .filter((f) => stageOf(f) === 'render')
      .flatMap((f) =>
        valueImportsOf(f).flatMap(({ spec, names }) => {
          const to = resolveImport(f, spec, known);
          return to !== undefined && before.has(stageOf(to)) && !allowed.has(relative(SRC, to)) ? [`${relative(SRC, f)} -> ${relative(SRC, to)} (${names.join(', ')})`] : [];
        }),
      );
    expect(reaching).toEqual([]);
  });

  it('leaves derive → detect to the pipeline: no other module derives the timeline or runs the rules itself', () => {
    // The store's derive and detect's entry points, and the modules that implement them on one or two threads.
    const stepsOf = new Map([
      ['store/derive.ts', ['deriveTimeline']],
      ['store/derive-threads.ts', ['deriveOnTwoThreads']],
      ['detect/run.ts', ['detect', 'detectDerived', 'detectIntoTable', 'runRules']],
      ['detect/parallel.ts', ['detectOnTwoThreads']],
    ]);
    const own = (f: string) => /^pipeline\//.test(f) || ['store/derive-threads.ts', 'detect/parallel.ts', 'detect/rules-worker.ts'].includes(f);
    const calls = /\b(deriveTimeline|deriveOnTwoThreads|detectDerived|detectIntoTable|detectOnTwoThreads|runRules)\(/;
    const wiring = files.flatMap((f) => {
      const from = relative(SRC, f);
      if (own(from) || stepsOf.has(from)) return [];
      const imported = valueImportsOf(f).flatMap(({ spec, names }) => {
        const to = resolveImport(f, spec, known);
        const steps = to === undefined ? undefined : stepsOf.get(relative(SRC, to));
        return steps === undefined ? [] : names.filter((n) => n === '*' || steps.includes(n)).map((n) => `${from} imports ${n} from ${relative(SRC, to!)}`);
      });
      const called = calls.exec(readFileSync(f, 'utf8'));
      return [...imported, ...(called ? [`${from} calls ${called[1]}`] : [])];
    });
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
