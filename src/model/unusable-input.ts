/**
 * An input that gave nothing to analyse: it could not be read, or not one of its lines is a record
 * (log-format.md). Any one makes the run exit 2 after the others are reported, so every report of
 * the run says so, not only stderr: a pipeline may read the report and never the exit code.
 */
export interface UnusableInput {
  /** As given (a folder's member by its path, stdin as `<stdin>`), as evidence names files. */
  name: string;
  /** Why, as stderr says it after `NAME: unusable: `. */
  reason: string;
  /** False for stdin: there is no file to point at. */
  file: boolean;
}
