import { stringify } from 'ndjson';
import { Transform } from 'node:stream';
import type { Finding } from '../model/finding.js';
import { terminalSafeJson } from '../model/printable.js';

// Headless watch output: one JSON line per new finding, in the report's
// finding shape, written as soon as it is found. A reader that goes away
// (`watch … | head -1`) is an ordinary end, not an error.

export class FindingLines {
  /** Findings in, JSON lines out. */
  private readonly objects: Transform;
  /** The JSON lines, terminal-safe. */
  private readonly lines: Transform;
  private gone = false;

  constructor(
    private readonly out: NodeJS.WritableStream,
    /** The output failed (EPIPE: the reader went away): nothing more can be written. Saying why is the caller's. */
    private readonly onGone: (err: NodeJS.ErrnoException) => void,
    /** The name an evidence file is quoted under now (a file rotated away is no longer the one at its path). */
    private readonly quotedAs: (file: string) => string = (file) => file,
  ) {
    // Each line as JSON that reads back the same, with no bidi override or C1 control as itself: the lines may go to a terminal.
    this.objects = stringify();
    this.lines = this.objects.pipe(new Transform({ decodeStrings: false, transform: (line: string | Buffer, _enc, done) => done(null, terminalSafeJson(String(line))) }));
    this.lines.pipe(out, { end: false });
    out.on('error', this.onError);
  }

  get closed(): boolean {
    return this.gone;
  }

  print(f: Finding): void {
    if (this.gone) return;
    const renamed = f.evidence.some((e) => this.quotedAs(e.file) !== e.file);
    this.objects.write(renamed ? { ...f, evidence: f.evidence.map((e) => ({ ...e, file: this.quotedAs(e.file) })) } : f);
  }

  /** Lets what was printed reach the output, then lets go of it. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      if (this.gone) return resolve();
      this.lines.once('end', resolve);
      this.objects.end();
    });
    this.lines.unpipe(this.out);
  }

  private readonly onError = (err: NodeJS.ErrnoException) => {
    if (this.gone) return;
    this.gone = true;
    this.lines.unpipe(this.out);
    // Drain into nothing, so that close() still sees the end.
    this.lines.resume();
    this.onGone(err);
  };
}
