import type { Db } from './db.js';

// The names of the sources a database holds, for the front ends: the dashboard's header, and
// watch's refusal to follow a file into a --db that already holds it.

/** Every source's name, in the order they were stored. */
export function sourceNames(db: Db): string[] {
  return db.prepare('SELECT name FROM sources ORDER BY id').pluck().all() as string[];
}

/** Whether the database holds a source of this name, or a later generation of it (`name (rotated 1)`, read/follow.ts). */
export function sourceHeld(db: Db): (name: string) => boolean {
  const seen = db.prepare("SELECT name FROM sources WHERE name = ? OR name LIKE ? || ' (%' LIMIT 1").pluck();
  return (name) => seen.get(name, name) !== undefined;
}
