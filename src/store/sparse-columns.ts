/**
 * Columns few records set, read as one value: a JSON array of them, or NULL where none is set.
 * Every value better-sqlite3 hands to JS costs about the same, NULL or not, so a read of every
 * record takes the rarely set columns this way. json_array keeps each value's type (an integer
 * stays a number, a text of digits a string). `table`: a qualifier such as `r.`.
 */
export function sparseColumnsJson(columns: readonly string[], table = ''): string {
  const qualified = columns.map((c) => `${table}${c}`);
  return `CASE WHEN ${qualified.map((c) => `${c} IS NOT NULL`).join(' OR ')} THEN json_array(${qualified.join(', ')}) END`;
}
