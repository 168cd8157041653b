// The `eoscope` process (bin/eoscope.mjs loads this): runs the command line and exits with its status.

import { runCli } from './commands.ts'

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`eoscope: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(1)
  },
)
