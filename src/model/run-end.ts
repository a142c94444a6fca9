/** Why a live run (`watch`) stopped: a bound it was given, stdin's end, a signal, a violation, the reader of its output gone, the user. */
export type RunEnd = 'idle' | 'exit-after' | 'eof' | 'signal' | 'fail-on' | 'output' | 'quit';
