// Who owned a session at a moment, from its incarnations in creation order (the store's read model,
// store/session-timeline.ts, gives them): the timeline's renderers mark requests of another principal.

/** What of an incarnation tells its owner: when it was created and ended, and the principal that created it. */
export interface OwnedIncarnation {
  created_ts: number;
  ended_ts: number | null;
  owner: string | null;
}

/**
 * The owner of the incarnation live at `ts_ms`: the last created at or before it. Undefined before the first
 * creation the log shows, or where no principal named the owner: then there is nothing to compare with.
 */
export function ownerAt(incarnations: readonly OwnedIncarnation[], ts_ms: number): string | undefined {
  // A soak test's session may be created again and again: a binary search, not a scan per row.
  let lo = 0;
  let hi = incarnations.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (incarnations[mid]!.created_ts <= ts_ms) lo = mid + 1;
    else hi = mid;
  }
  const inc = lo === 0 ? undefined : incarnations[lo - 1]!;
  // An ended incarnation owns nothing after its end: a request then is no one's to be told apart from.
  return inc === undefined || (inc.ended_ts !== null && inc.ended_ts < ts_ms) ? undefined : (inc.owner ?? undefined);
}
