import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function makeTempDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'resumescope-e2e-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
