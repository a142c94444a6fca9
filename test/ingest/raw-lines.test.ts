import { describe, expect, it } from 'vitest';
import { decodeRawLines, encodeRawLines } from '../../src/pipeline/raw-lines.js';
import type { JoinedLine } from '../../src/pipeline/line-pieces.js';

// Lines the worker hands over as read come back as they went: the last line's want of a newline too,
// so that its rejection says the file may have been cut, whichever thread normalizes it.
describe('raw lines across the worker\'s port', () => {
  it('come back as they went, an unterminated last line marked', () => {
    const lines: JoinedLine[] = [
      { line: 1, text: '{"a":1}', offset: 0, bytes: 7 },
      { line: 2, error: 'invalid UTF-8', preview: '..' },
      { line: 3, pieceOf: 1 },
      { line: 4, text: 'x' },
      { line: 5, text: '{"ts":', offset: 20, bytes: 6, unterminated: true },
    ];
    expect([...decodeRawLines(encodeRawLines(lines))]).toEqual(lines);
  });

  it('near miss: a line ended by its newline is not marked', () => {
    const [l] = [...decodeRawLines(encodeRawLines([{ line: 5, text: '{"ts":', offset: 20, bytes: 6 }]))];
    expect(l).toEqual({ line: 5, text: '{"ts":', offset: 20, bytes: 6 });
  });
});
