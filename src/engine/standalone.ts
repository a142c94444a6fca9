// The one definition of the session's standalone (GET) lineage, shared by the
// store's fold (which streams an attach supersedes) and the engine's lineage
// (rules.md v2): a stream is part of the standalone lineage when the stream
// its lineage began with was opened by a GET (a `stream.opened` via get, an
// attach, or a `fresh` upgrade). A resumption is a GET too, but it continues
// the lineage it resumes: a resumed POST response stays a POST lineage, which
// an attach does not supersede.

export function isStandaloneLineage(lineageRootVia: string | null | undefined): boolean {
  return lineageRootVia === 'get';
}
