// The `eoscope` command.

import { RUN_USAGE, runCommand } from './run-command.ts'
import { UsageError } from './args.ts'
import { SCENARIO_USAGE, scenarioCommand } from './scenario-command.ts'
import { WORKER_USAGE, workerCommand } from './worker-command.ts'
import { SWEEP_USAGE, sweepCommand } from './sweep-command.ts'

const USAGE = `usage:
  ${RUN_USAGE}
  ${SCENARIO_USAGE}
  ${SWEEP_USAGE}
  ${WORKER_USAGE}
`

const COMMANDS: Record<string, (argv: string[], out: (s: string) => void) => Promise<number>> = {
  run: runCommand,
  scenario: scenarioCommand,
  sweep: sweepCommand,
  worker: workerCommand,
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (!command || command === '--help' || command === 'help') {
    process.stdout.write(USAGE)
    return command ? 0 : 2
  }
  const handler = COMMANDS[command]
  try {
    if (!handler) throw new UsageError(`unknown command ${JSON.stringify(command)}; known: ${Object.keys(COMMANDS).join(', ')}`)
    return await handler(rest, (s) => process.stdout.write(s + '\n'))
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`eoscope: ${e.message}\n${USAGE}`)
      return 2
    }
    process.stderr.write(`eoscope: ${e instanceof Error ? e.message : String(e)}\n`)
    return 1
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`eoscope: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(1)
  },
)
