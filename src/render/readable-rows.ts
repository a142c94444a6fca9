import type { LineRef } from '../model/record.js';
import { isoTime } from '../model/phrasing.js';
import { rowsWriter, type RowsFormat } from './rows.js';

type Row = Record<string, unknown>;

/** The file:line each record id was logged at (detect/evidence.ts resolveEvidence over the store), for one batch. */
export type EvidenceLines = (ids: readonly number[]) => { get(id: number): { ref: LineRef } | undefined };

/** A query's answer as it comes (a store/bounded-query.ts RowSink), written for a person to read. */
export interface ReadableRowsWriter {
  columns(names: string[]): void;
  rows(batch: Row[]): void;
  /** Rows already written out (a table writes none before its end). */
  readonly written: number;
  end(): void;
}

/**
 * Rows as a person reads them, written as they come: an `at_ms` column gains an `at` time beside it
 * (NULL where at_ms is not a time), and an `evidence` column of record ids becomes the file:line it names.
 */
export function readableRowsWriter(format: RowsFormat, out: (piece: string) => void, opts: { wide: boolean; evidenceLines: EvidenceLines }): ReadableRowsWriter {
  let writer: ReturnType<typeof rowsWriter> | undefined;
  return {
    columns: (names) => void (writer = rowsWriter(format, out, { columns: names.flatMap((c) => (c === 'at_ms' ? ['at', c] : [c])), wide: opts.wide })),
    rows: (batch) => writer!.write(readableRows(batch, opts.evidenceLines)),
    get written() {
      return writer?.written ?? 0;
    },
    end: () => writer!.end(),
  };
}

function readableRows(rows: Row[], evidenceLines: EvidenceLines): Row[] {
  const evidence = (v: unknown): number[] | undefined => {
    if (typeof v !== 'string' || !v.startsWith('[')) return undefined;
    try {
      const ids = JSON.parse(v) as unknown[];
      return ids.every((x) => typeof x === 'number' || x === null) ? (ids.filter((x) => x !== null) as number[]) : undefined;
    } catch {
      return undefined;
    }
  };
  const refs = evidenceLines(rows.flatMap((r) => evidence(r.evidence) ?? []));
  return rows.map((r) => {
    if (!('at_ms' in r) && !('evidence' in r)) return r;
    const out: Row = {};
    for (const [k, v] of Object.entries(r)) {
      // Integers come as BigInt (store/bounded-query.ts); a time in ms is well within 2^53.
      if (k === 'at_ms') out.at = typeof v === 'number' || typeof v === 'bigint' ? isoTime(Number(v)) : null;
      const ids = k === 'evidence' ? evidence(v) : undefined;
      out[k] = ids ? ids.map((id) => refs.get(id)).filter((x) => x !== undefined).map((x) => `${x.ref.file}:${x.ref.line}`).join(' ') : v;
    }
    return out;
  });
}
