import type { Db } from '../../store/db.js';
import type { RejectedLine } from '../view-model.js';

/** Rejected lines in file then line order, a page at a time (the view asks for the page it shows). */
export function rejectedLoader(db: Db): (offset: number, limit: number) => RejectedLine[] {
  const page = db.prepare(
    'SELECT s.name AS file, j.line AS line, j.reason AS reason, coalesce(j.text, \'\') AS text FROM rejected j JOIN sources s ON s.id = j.source_id ORDER BY j.source_id, j.line, j.id LIMIT ? OFFSET ?',
  );
  return (offset, limit) => page.all(Math.max(0, limit), Math.max(0, offset)) as RejectedLine[];
}
