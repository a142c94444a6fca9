import { REJECTED_PREVIEW, type NormalizedLine } from '../model/record.js';
import type { InputFormat } from '../normalize/formats/index.js';
import { LineNormalizer } from '../normalize/normalize-line.js';
import { isCredentialName, redactText } from '../normalize/redact.js';
import { csvCells } from '../read/csv-rows.js';
import { csvQuoted } from '../model/csv-cell.js';
import type { JoinedLine } from './line-pieces.js';
import { podOfLogPath } from '../read/folders.js';
import { lineKey, rememberable } from '../normalize/repeated-lines.js';

/**
 * read → normalize for one source: what each input line becomes for the
 * store. The same function runs in this thread and in the worker, so both
 * paths store the same rows and say the same reasons.
 */
export class LineStage {
  private readonly normalizer: LineNormalizer;
  /** A CSV file read a line per record (no --csv): its header's credential columns, whose cells its rejected rows must not keep. */
  private csvSecrets: number[] | undefined;

  /** `copyLines` false: a line whose own bytes are the quote is handed over as where it is, without its text. */
  constructor(inputFormat?: string, formats?: InputFormat[], private readonly copyLines = true, path?: string | null) {
    const pod = path ? podOfLogPath(path) : undefined;
    this.normalizer = new LineNormalizer(inputFormat, formats, pod === undefined ? undefined : { node: pod });
  }

  /** The file's format once a line showed it (or as forced); from then on it is kept to the file's end. */
  get formatName(): string | undefined {
    return this.normalizer.formatName;
  }

  normalize(l: JoinedLine): NormalizedLine {
    if ('pieceOf' in l) return { line: l.line, type: 'ignored' };
    if ('error' in l) return { line: l.line, type: 'rejected', reason: l.error, text: redactText(l.preview) };
    const out = this.normalizer.normalize(l.text);
    if (out.type === 'ignored') return out.hint === undefined ? { line: l.line, type: 'ignored' } : { line: l.line, type: 'ignored', hint: out.hint };
    // The stored line is the redacted one where the line held a credential.
    const raw = out.redacted ?? l.text;
    if (out.type === 'rejected') {
      // A file's last line with no newline after it, and no record: most likely half a line, its writer stopped mid-line.
      const reason = l.unterminated === true ? `${out.reason} (the last line, with no final newline: the file may have been cut while it was written)` : out.reason;
      if (l.line === 1) this.csvSecrets = credentialColumns(raw);
      const text = this.csvSecrets === undefined || l.line === 1 ? raw : redactCells(raw, this.csvSecrets);
      return { line: l.line, type: 'rejected', reason, text: text.slice(0, REJECTED_PREVIEW) };
    }
    // Where the file's own bytes are the line to quote, the store may keep where they are instead of a copy.
    const at = out.redacted === undefined && l.offset !== undefined ? { offset: l.offset, bytes: l.bytes! } : undefined;
    const kept: NormalizedLine =
      at === undefined ? { line: l.line, type: 'records', records: out.records, format: out.format, raw }
      // Not copying the text saves its structured clone across the worker's port, too.
      : !this.copyLines ? { line: l.line, type: 'records', records: out.records, format: out.format, at }
      : { line: l.line, type: 'records', records: out.records, format: out.format, raw, at };
    // A batch line some of whose records could not be read: rejected, its other records kept.
    if (out.rejected !== undefined && kept.type === 'records') kept.rejected = { reason: out.rejected, text: raw.slice(0, REJECTED_PREVIEW) };
    // Its text, should the store reject it, is the one its first record carries or points to: not sent twice.
    if (out.inheriting !== undefined && kept.type === 'records') kept.inheriting = out.inheriting;
    // Whether it came before is the store's to ask: it takes the lines of every thread in order.
    // Known by the record's own text, inside whichever envelope carried it: one record through two channels is one.
    const own = out.inner ?? l.text;
    if (kept.type === 'records' && rememberable(out.records, own)) kept.key = lineKey(own);
    return kept;
  }
}

/**
 * A rejected first line that is a CSV header (names, commas) naming a credential column (`password`,
 * `authorization`): the columns whose cells the file's rejected rows hold credentials in. Read a
 * line at a time, a row's `hunter2` has no key beside it for the redactor to see.
 */
function credentialColumns(header: string): number[] | undefined {
  if (!header.includes(',')) return undefined;
  const names = csvCells(header)?.map((c) => c.trim());
  if (names === undefined || !names.every((n) => /^[\w@.:\- ]{1,80}$/.test(n))) return undefined;
  const secret = names.flatMap((n, i) => (isCredentialName(n) ? [i] : []));
  return secret.length > 0 ? secret : undefined;
}

/** The row with the cells of those columns redacted; a row that does not split as CSV is left to the line redactor. */
function redactCells(row: string, columns: readonly number[]): string {
  const cells = csvCells(row);
  if (cells === undefined) return row;
  let changed = false;
  for (const i of columns) {
    if (i < cells.length && cells[i] !== '') {
      cells[i] = '[redacted]';
      changed = true;
    }
  }
  return changed ? cells.map(csvQuoted).join(',') : row;
}
