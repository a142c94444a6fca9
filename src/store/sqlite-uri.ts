// better-sqlite3 reads this once, when its addon loads: with it, a name that starts `file:` is a URI, which
// is how a read-only connection asks for `immutable=1` (store/db.ts, openReadOnly). openDb resolves a
// relative path that starts `file:`, so no file name is taken for a URI.
process.env.SQLITE_USE_URI ??= '1';
