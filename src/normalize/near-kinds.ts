import { editDistance } from '../model/edit-distance.js';
import { RECORD_KINDS, type RecordKind } from '../model/record.js';

// A kind written almost right: `Upgrade`, `EVENT.SENT`, `event_sent`, `request.timeout`. log-format.md makes
// a line whose kind alias (`event`, `type`, `msg`) names no kind an ordinary application line, ignored; but
// one that names a kind but for case or separators, or a known family's kind but for a letter or its end, is a
// record the writer meant, and ignoring it silently lost a critical finding. Such a line is rejected, with
// the kind meant. A family's other words (`session.login`, `request.received`) stay the application's.

/** A kind with its case and separators folded away: `event.sent`, `Event_Sent` and `EVENT-SENT` are one. */
const fold = (s: string) => s.toLowerCase().replace(/[-_. :]/g, '');

const BY_FOLD = new Map<string, RecordKind>(RECORD_KINDS.map((k) => [fold(k), k]));

/** Each family's kinds by the folded word after its prefix: `request` → timedout → request.timed_out. */
const FAMILIES = new Map<string, [string, RecordKind][]>();
for (const k of RECORD_KINDS) {
  const dot = k.indexOf('.');
  if (dot < 0) continue;
  const family = k.slice(0, dot);
  const words = FAMILIES.get(family) ?? [];
  words.push([fold(k.slice(dot + 1)), k]);
  FAMILIES.set(family, words);
}

/** Only a short word or two, of letters and separators, may be a kind: a logger's sentence is passed over at once. */
const KIND_LIKE = /^[A-Za-z]+(?:[-_. :][A-Za-z]+){0,2}$/;
const FAMILY_WORD = /^([a-z]+)[-_. :]([a-z_-]+)$/;

/** The kind `value` looks meant for, where it is none itself; undefined where it looks like no kind. */
export function nearKind(value: string): RecordKind | undefined {
  if (value.length > 32 || !KIND_LIKE.test(value)) return undefined;
  const same = BY_FOLD.get(fold(value));
  if (same !== undefined) return same;
  const m = FAMILY_WORD.exec(value.toLowerCase());
  const words = m === null ? undefined : FAMILIES.get(m[1]!);
  if (words === undefined) return undefined;
  const word = fold(m![2]!);
  if (word.length < 3) return undefined;
  // A letter off (`timeout`, `send`), or the word cut short (`open`, `answer`): not another word built on it
  // (`stream.reopened` is an event of its own, and log-format.md's ignored line).
  for (const [w, kind] of words) if (editDistance(word, w, 1) <= 1 || (word.length >= 4 && w.startsWith(word))) return kind;
  return undefined;
}
