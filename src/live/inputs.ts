import type { SourceStats } from '../store/source-sink.js';
import { isGenerationOf, STDIN_NAME } from '../read/follow.js';

// What `watch` was given to follow, and at the end of the run which of it gave nothing to judge. The spec
// (log-format.md) calls an input file unusable when it cannot be read or not one of its lines is a record,
// and such a file makes a run exit 2 so that a broken export never passes a gate silently. Live, an input is
// a path followed for the whole run: each file that was at it (its generations: the file before and after a
// rotation or truncation) is one source of the store, and the input gave records if any of them did. A
// folder is followed for the files that appear in it; each file found there is an input of its own.

/** A path as given on the command line: a file or folder (present or not yet), or `-`. */
export type LiveInput = string;

/** What is at a path now, for an input that gave no source at all. */
export type PathState = { kind: 'unreadable'; why: string } | { kind: 'folder' } | { kind: 'file' } | { kind: 'other' };

export interface InputVerdicts {
  /** Inputs that gave no record, as stats for the "unusable" report (one per input, its generations summed). */
  unusable: SourceStats[];
  /** Sources with rejected lines, of inputs that did give records. */
  rejected: SourceStats[];
}

export class LiveInputs {
  /** Per input path, the files found in it (a folder's files, told by follow's discovery or listed at the start). */
  private readonly found = new Map<string, Set<string>>();

  constructor(private readonly inputs: LiveInput[]) {}

  /** Files that are the folder `input`'s (its live files, its rotated generations read first, those that appear later). */
  foundIn(input: string, files: Iterable<string>): void {
    const set = this.found.get(input) ?? new Set<string>();
    for (const f of files) set.add(f);
    this.found.set(input, set);
  }

  /** The inputs' verdicts at the end of the run, from the stats of every source the run stored. */
  verdicts(stats: readonly SourceStats[], stateOf: (path: string) => PathState): InputVerdicts {
    const out: InputVerdicts = { unusable: [], rejected: [] };
    const judged = new Set<string>();
    const judgeFile = (path: string, name: string, gens: SourceStats[]) => {
      if (judged.has(path)) return;
      judged.add(path);
      if (gens.some((g) => g.records > 0)) {
        for (const g of gens) if (g.rejected > 0) out.rejected.push(g);
      } else {
        // stdin that ended before a line: no line, no record
        out.unusable.push(gens.length > 0 ? summed(name, gens) : nothingRead(name, path === '-' ? { kind: 'file' } : stateOf(path)));
      }
    };
    for (const input of this.inputs) {
      if (input === '-') {
        judgeFile(input, STDIN_NAME, stats.filter((s) => s.name === STDIN_NAME));
        continue;
      }
      const gens = stats.filter((s) => isGenerationOf(s.name, input));
      const files = this.found.get(input);
      if (gens.length > 0 || files === undefined || files.size === 0) {
        // A file (or a path at which nothing usable appeared): judged as a file, unless a folder is there now.
        const state = gens.length > 0 ? undefined : stateOf(input);
        if (state?.kind === 'folder') {
          if (!judged.has(input)) out.unusable.push({ ...emptyStats(input), readError: 'no *.ndjson, *.jsonl, *.log or *.json file to follow appeared in the folder' });
          judged.add(input);
        } else {
          judgeFile(input, input, gens);
        }
        continue;
      }
      for (const f of files) judgeFile(f, f, stats.filter((s) => isGenerationOf(s.name, f)));
    }
    return out;
  }
}

function emptyStats(name: string): SourceStats {
  return { name, lines: 0, recordLines: 0, records: 0, ignored: 0, repeated: 0, rejected: 0 };
}

/** An input none of whose files gave a record: its generations' counts summed, its first problem the first one's. */
function summed(name: string, gens: SourceStats[]): SourceStats {
  const s = emptyStats(name);
  for (const g of gens) {
    s.lines += g.lines;
    s.recordLines += g.recordLines;
    s.ignored += g.ignored;
    s.repeated += g.repeated;
    s.rejected += g.rejected;
    if (s.firstProblem === undefined && g.firstProblem !== undefined) {
      // A later generation's line number is that file's: it is named.
      s.firstProblem = g.name === name ? g.firstProblem : { line: g.firstProblem.line, reason: `${g.firstProblem.reason} (in ${g.name})` };
    }
  }
  return s;
}

/** An input that gave no source: nothing ever appeared at its path, or nothing was read of what did. */
function nothingRead(name: string, state: PathState): SourceStats {
  switch (state.kind) {
    case 'unreadable':
      // as analyze words it ("cannot read (ENOENT: no such file or folder)"), and why that is no passing moment
      return { ...emptyStats(name), readError: `cannot read (${state.why}): it never appeared while followed` };
    case 'other':
      return { ...emptyStats(name), readError: 'not a regular file: nothing to follow' };
    default:
      // A file that stayed empty, or whose only line never ended: no line, no record.
      return emptyStats(name);
  }
}
