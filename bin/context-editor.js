#!/usr/bin/env node
// The `context-editor` command. The implementation is compiled from ts/cli/ into dist/cli/.
let main
try {
  ;({ main } = await import('../dist/cli/main.js'))
} catch (e) {
  if (e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('dist')) {
    process.stderr.write('context-editor: dist/ is missing: run `npm run build` (or `npm run build:debug`) first\n')
    process.exit(1)
  }
  throw e
}
// Every write to stdout waits for its callback and reports its own error (ENOSPC, EIO), naming
// stdout; this listener only keeps the stream's copy of that error from being thrown as uncaught.
// A reader that went away (`| head`) ends the command quietly.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0)
})
// stderr only carries the report and the errors: when nobody reads it (a closed pipe, a full disk)
// they are lost, but the run is not, and its exit code still says how it went. Unhandled, the
// stream's EPIPE was an uncaught exception: exit 1 after a successful edit, or after a usage error.
process.stderr.on('error', () => {})
// A last resort: an error thrown outside the command's own handling (a stream's callback, a bug)
// is still one line and exit 1, never a stack trace; the exit handler removes temporary files.
// oxlint-disable-next-line no-control-regex -- control characters are what it matches
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g
const lastResort = (e) => {
  try {
    const text = String(e?.message ?? e)
      .replace(CONTROL, ' ')
      .slice(0, 1000)
    process.stderr.write(`context-editor: internal error: ${text}\n`)
    if (process.env.CONTEXT_EDITOR_DEBUG && e?.stack) process.stderr.write(`${e.stack}\n`)
  } finally {
    process.exit(1)
  }
}
process.on('uncaughtException', lastResort)
process.on('unhandledRejection', lastResort)
process.exitCode = await main(process.argv.slice(2))
