/** "1 finding", "43,944 findings": counts a reader scans, with thousands separated. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
