import { describe, expect, it } from 'vitest';
import { LiveInputs, type PathState } from '../../src/live/inputs.js';
import { isGenerationOf } from '../../src/read/follow.js';
import type { SourceStats } from '../../src/store/source-sink.js';

// Which of watch's inputs gave nothing to judge at the end of a run (log-format.md: such an input makes a gate exit 2).

const stats = (name: string, counts: Partial<SourceStats> = {}): SourceStats => ({ name, lines: 0, recordLines: 0, records: 0, ignored: 0, repeated: 0, rejected: 0, ...counts });
const missing: PathState = { kind: 'unreadable', why: 'ENOENT: no such file or folder' };

describe('isGenerationOf', () => {
  it('knows a followed file\'s generations by the names follow gives them, and nothing else', () => {
    expect(isGenerationOf('/l/a.log', '/l/a.log')).toBe(true);
    expect(isGenerationOf('/l/a.log (rotated 2)', '/l/a.log')).toBe(true);
    expect(isGenerationOf('/l/a.log (truncated 1)', '/l/a.log')).toBe(true);
    expect(isGenerationOf('/l/a.log.1', '/l/a.log')).toBe(false);
    expect(isGenerationOf('/l/a.log (copy)', '/l/a.log')).toBe(false);
  });
});

describe('LiveInputs.verdicts', () => {
  it('an input gave records if any of its generations did: the others\' rejected lines are told, it is not unusable', () => {
    const inputs = new LiveInputs(['/l/a.log']);
    const old = stats('/l/a.log', { lines: 3, records: 3 });
    const next = stats('/l/a.log (rotated 1)', { lines: 1, rejected: 1, firstProblem: { line: 1, reason: 'invalid JSON' } });
    expect(inputs.verdicts([old, next], () => ({ kind: 'file' }))).toEqual({ unusable: [], rejected: [next] });
  });

  it('an input none of whose generations gave a record is one unusable input, its counts summed, a later generation\'s line named', () => {
    const inputs = new LiveInputs(['/l/a.log']);
    const old = stats('/l/a.log', { lines: 2, ignored: 2 });
    const next = stats('/l/a.log (truncated 1)', { lines: 1, rejected: 1, firstProblem: { line: 1, reason: 'invalid JSON' } });
    const { unusable } = inputs.verdicts([old, next], () => ({ kind: 'file' }));
    expect(unusable).toEqual([expect.objectContaining({ name: '/l/a.log', lines: 3, records: 0, rejected: 1, firstProblem: { line: 1, reason: 'invalid JSON (in /l/a.log (truncated 1))' } })]);
  });

  it('a path with no source: missing (never appeared), a file that stayed empty, a folder in which no log file appeared', () => {
    const inputs = new LiveInputs(['/l/gone.log', '/l/empty.log', '/l/pods', '-']);
    const state = (p: string): PathState => (p === '/l/gone.log' ? missing : p === '/l/pods' ? { kind: 'folder' } : { kind: 'file' });
    const { unusable } = inputs.verdicts([], state);
    expect(unusable).toEqual([
      expect.objectContaining({ name: '/l/gone.log', readError: 'cannot read (ENOENT: no such file or folder): it never appeared while followed' }),
      expect.objectContaining({ name: '/l/empty.log', lines: 0 }),
      expect.objectContaining({ name: '/l/pods', readError: 'no *.ndjson, *.jsonl, *.log or *.json file to follow appeared in the folder' }),
      expect.objectContaining({ name: '<stdin>', lines: 0 }),
    ]);
  });

  it('a folder\'s files are inputs of their own: one with no record is unusable though another gave records', () => {
    const inputs = new LiveInputs(['/l/pods']);
    inputs.foundIn('/l/pods', ['/l/pods/a.log', '/l/pods/a.log.1']);
    inputs.foundIn('/l/pods', ['/l/pods/b.log']);
    const { unusable, rejected } = inputs.verdicts([stats('/l/pods/a.log', { lines: 1, records: 1 }), stats('/l/pods/a.log.1', { lines: 1, records: 1 })], () => ({ kind: 'file' }));
    expect(unusable.map((s) => s.name)).toEqual(['/l/pods/b.log']);
    expect(rejected).toEqual([]);
  });
});
