// What a long run reports while it works: the pipeline emits these, a
// front end (the CLI's stderr line, the tui's loading screen) draws them.
// Types only: every stage may name them.

export type Stage = 'read' | 'derive' | 'detect' | 'report';

export type ProgressEvent =
  /** Lines read so far from one source (cumulative within that source). */
  | { type: 'lines'; source: string; lines: number }
  /** A new stage began. */
  | { type: 'stage'; stage: Stage };

export type ProgressListener = (e: ProgressEvent) => void;
