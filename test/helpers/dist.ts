// Worker threads run from dist/ only (a worker cannot load src/'s TypeScript), so tests of a stage
// that starts one import that stage from the build, as the CLI runs it. CI builds dist/ in npm ci.
const DIST = new URL('../../dist/', import.meta.url);

/** The built module at `path` under dist/ (e.g. 'detect/parallel.js'), typed as its source: `fromDist<typeof import('../../src/…')>`. */
export function fromDist<T>(path: string): Promise<T> {
  return import(new URL(path, DIST).href) as Promise<T>;
}
