import { rejectedLinesNote, unusableTextLines } from '../render/common.js';
import type { UnusableInput } from '../model/unusable-input.js';

// What every text report of a command says of its inputs, as analyze's does (log-format.md: rejected
// lines are counted in every report; an unusable input fails the run): the unusable inputs first, the
// rejected lines last. For the commands whose report is not analyze's: explain and timeline.

/** `body`, led by the unusable inputs and followed by the rejected lines' count, where there are any. */
export function* withInputNotes(body: Iterable<string>, unusable: readonly UnusableInput[], rejected: number): Generator<string> {
  const head = unusableTextLines(unusable, process.cwd());
  if (head.length > 0) yield `${head.join('\n')}\n\n`;
  yield* body;
  if (rejected > 0) yield `\n${rejectedLinesNote(rejected)}.\n`;
}
