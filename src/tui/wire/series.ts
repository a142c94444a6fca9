import type { Series } from '../view-model.js';

// Per-second counts of what the charts show, kept as records arrive, and cut
// into at most MAX_INTERVALS intervals of a readable width when drawn. Pure.

export interface SecondCounts {
  resume: number;
  attach: number;
  fresh: number;
  reject: number;
  replayed: number;
  reemitted: number;
  http404: number;
}

/** One stored record, as far as the charts care. */
export interface ChartRecord {
  ts_ms: number;
  kind: string;
  origin: string;
  decision: string | null;
  status: number | null;
  replayed: number | null;
  reemitted: number | null;
}

export const MAX_INTERVALS = 120;
const WIDTHS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400];

const zero = (): SecondCounts => ({ resume: 0, attach: 0, fresh: 0, reject: 0, replayed: 0, reemitted: 0, http404: 0 });

export class SeriesCounter {
  private readonly seconds = new Map<number, SecondCounts>();
  private first = Number.POSITIVE_INFINITY;
  private last = Number.NEGATIVE_INFINITY;

  add(r: ChartRecord): void {
    const upgrade = r.kind === 'upgrade';
    // A 404 counted once: the proxy's line, or the server's own record of the request (not one inferred from a proxy line).
    const notFound = r.status === 404 && (r.kind === 'http' || (r.origin === 'server' && ['call', 'request.answered', 'upgrade'].includes(r.kind)));
    if (!upgrade && !notFound) return;
    const sec = Math.floor(r.ts_ms / 1000);
    let c = this.seconds.get(sec);
    if (c === undefined) {
      c = zero();
      this.seconds.set(sec, c);
      this.first = Math.min(this.first, sec);
      this.last = Math.max(this.last, sec);
    }
    if (upgrade) {
      if (r.decision === 'resume' || r.decision === 'attach' || r.decision === 'fresh' || r.decision === 'reject') c[r.decision]++;
      c.replayed += r.replayed ?? 0;
      c.reemitted += r.reemitted ?? 0;
    }
    if (notFound) c.http404++;
  }

  /** The counts in intervals of one width, from the first second seen to the last. */
  series(): Series {
    const out: Series = { labels: [], decisions: { resume: [], attach: [], fresh: [], reject: [] }, replayed: [], reemitted: [], http404: [] };
    if (this.seconds.size === 0) return out;
    const width = intervalWidth(this.last - this.first + 1);
    const start = Math.floor(this.first / width) * width;
    const n = Math.floor((this.last - start) / width) + 1;
    const buckets = Array.from({ length: n }, zero);
    for (const [sec, c] of this.seconds) {
      const b = buckets[Math.floor((sec - start) / width)]!;
      for (const k of Object.keys(c) as (keyof SecondCounts)[]) b[k] += c[k];
    }
    buckets.forEach((b, i) => {
      out.labels.push(new Date((start + i * width) * 1000).toISOString());
      out.decisions.resume.push(b.resume);
      out.decisions.attach.push(b.attach);
      out.decisions.fresh.push(b.fresh);
      out.decisions.reject.push(b.reject);
      out.replayed.push(b.replayed);
      out.reemitted.push(b.reemitted);
      out.http404.push(b.http404);
    });
    return out;
  }
}

/** The narrowest readable interval (1 s, 2 s, 5 s, … 1 day) that cuts `spanS` seconds into at most MAX_INTERVALS. */
export function intervalWidth(spanS: number): number {
  for (const w of WIDTHS_S) if (Math.ceil(spanS / w) <= MAX_INTERVALS) return w;
  return Math.ceil(spanS / MAX_INTERVALS / 86400) * 86400;
}
