import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineAssembler, MAX_LINE_BYTES, type InputLine } from '../../src/read/lines.js';

// Where a line's text sits in the byte stream: the store keeps (offset, bytes) instead of a copy of the
// line and re-reads the text from there, so those bytes must decode to exactly the text, however the
// stream was cut into chunks and whatever the line held (CRLF, a BOM, multi-byte UTF-8, bad bytes, overlong lines).

function linesOf(buf: Buffer, cuts: number[]): InputLine[] {
  const a = new LineAssembler();
  const out: InputLine[] = [];
  let prev = 0;
  for (const c of [...new Set(cuts.map((x) => x % (buf.length + 1)))].sort((x, y) => x - y).concat(buf.length)) {
    out.push(...a.push(buf.subarray(prev, c)));
    prev = c;
  }
  out.push(...a.end());
  return out;
}

function expectOffsetsAddUp(buf: Buffer, lines: InputLine[]): void {
  for (const l of lines) {
    if ('error' in l) continue;
    expect(l.offset).toBeTypeOf('number');
    expect(buf.subarray(l.offset!, l.offset! + l.bytes!).toString('utf8')).toBe(l.text);
  }
}

describe('line offsets', () => {
  it('place each text in the stream: CRLF, a BOM, multi-byte characters, an empty line and no final newline', () => {
    const buf = Buffer.from('\uFEFF{"a":"é"}\r\n\n{"b":"日本"}\n{"c":1}', 'utf8');
    const lines = linesOf(buf, [2, 7, 13]);
    expect(lines.map((l) => ('text' in l ? l.text : l.error))).toEqual(['{"a":"é"}', '', '{"b":"日本"}', '{"c":1}']);
    expectOffsetsAddUp(buf, lines);
    expect(lines[0]).toMatchObject({ offset: 3 });
  });

  it('stay right after a line with bad UTF-8 and after a line over the cap', () => {
    const big = 'x'.repeat(MAX_LINE_BYTES + 10);
    const buf = Buffer.concat([Buffer.from('{"a":1}\n'), Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from(`${big}\n{"z":"ü"}\n`)]);
    for (const cuts of [[], [5, 9, 4000, MAX_LINE_BYTES], [1, 2, 3, 10, 11, MAX_LINE_BYTES + 11]]) {
      const lines = linesOf(buf, cuts);
      expect(lines.map((l) => ('error' in l ? 'error' : l.text))).toEqual(['{"a":1}', 'error', 'error', '{"z":"ü"}']);
      expectOffsetsAddUp(buf, lines);
    }
  });

  it('hold for any text cut anywhere', () => {
    const piece = fc.constantFrom('a', 'é', '日', '\n', '\r\n', '"', '\uFEFF', ' ', '{}', '\u{1F600}');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 6 }), (pieces, cuts) => {
        const buf = Buffer.from(pieces.join(''), 'utf8');
        expectOffsetsAddUp(buf, linesOf(buf, cuts));
      }),
      { numRuns: 300 },
    );
  });
});
