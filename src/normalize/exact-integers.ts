// JSON.parse reads every number as a double: an id written as a bare integer above 2^53
// (1790000000000000001, a snowflake or a nanosecond counter used as an event id) comes back rounded,
// and three distinct ids become one, a false event-id-regression. Node 20 has no access to a number's
// source text in JSON.parse, so a line that gave such an id is parsed again with those integers quoted
// (normalize-line.ts; fields.ts idString notices the rounding): ids are opaque
// strings to every rule (the integer 1204 and the string "1204" are the same id). A time or a size that
// large is a number the reader expects as one (nanosecond epochs), and is left alone.

/** An integer with 16 digits or more after a `:`, `,` or `[`: the only lines worth the scan. */
const MAYBE_BIG = /[:,[]\s*-?\d{16}/;

/** Keys whose numbers are times or amounts, never ids. */
const NUMERIC_KEY = /time|stamp|date|nano|epoch|duration|bytes|size|offset|count|^ts$|^@?ts_|_(ms|us|ns)$/i;

/** The line with each bare integer beyond 2^53 that is no time or amount quoted; the line itself when there is none. */
export function withExactIntegers(text: string): string {
  if (!MAYBE_BIG.test(text)) return text;
  let out = '';
  let copied = 0;
  // The key each open container's values belong to: a member's key in an object, the array's own key in an array.
  const containers: { array: boolean; key: string | undefined }[] = [];
  let memberKey: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      const value = text.slice(i + 1, end);
      i = end;
      let j = end + 1;
      while (j < text.length && (text[j] === ' ' || text[j] === '\t')) j++;
      if (text[j] === ':') memberKey = value;
    } else if (c === '{' || c === '[') {
      containers.push({ array: c === '[', key: keyHere(containers, memberKey) });
      memberKey = undefined;
    } else if (c === '}' || c === ']') {
      containers.pop();
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE+-]/.test(text[j]!)) j++;
      const token = text.slice(i, j);
      if (/^-?\d{16,}$/.test(token) && !Number.isSafeInteger(Number(token)) && !NUMERIC_KEY.test(keyHere(containers, memberKey) ?? '')) {
        out += `${text.slice(copied, i)}"${token}"`;
        copied = j;
      }
      i = j - 1;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function keyHere(containers: readonly { array: boolean; key: string | undefined }[], memberKey: string | undefined): string | undefined {
  const top = containers.at(-1);
  return top?.array ? top.key : memberKey;
}

/** The index of the quote closing the string opened at `start` (the text's end if it never closes). */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length;
}
