// Limits on what options may look like, in one place for every reader of options (the editor's
// copy, the middlewares' snapshots, the summarization reader, the schema's null handling). A leaf
// module: the readers import each other's modules in turn.

/** Options nest a few levels; deeper is a mistake or a cycle (and would overflow the stack). */
export const MAX_OPTIONS_DEPTH = 64

/**
 * Longest option list (`excludeTools`, `edits`, a trigger list): longer is a mistake, and walking
 * a sparse array of length 2**32 - 1 would hang and then exhaust memory.
 */
export const MAX_OPTIONS_LIST = 100_000
