// The `eoscope` commands: `eoscope <command> [flags]`, `eoscope <command> --help`, `eoscope --help`.

import {
  type CommandSpec,
  type FlagSpecs,
  type FlagValues,
  helpText,
  parseCommandLine,
  usageText,
  UsageError,
} from './flags.ts'
import { UnsupportedOnBackendError } from '../log/capabilities.ts'
import { LEARN, learnCommand } from './learn-command.ts'
import { OBSERVE, observeCommand } from './observe-command.ts'
import { RUN, runCommand } from './run-command.ts'
import { SCENARIO, scenarioCommand } from './scenario-command.ts'
import { SWEEP, sweepCommand } from './sweep-command.ts'
import { TRANSACTIONS, transactionsCommand } from './transactions-command.ts'
import { WORKER, workerCommand } from './worker-command.ts'

type Out = (s: string) => void

interface Command {
  spec: CommandSpec
  /** Parses the arguments and runs; --help prints the command's flags instead. */
  execute(argv: readonly string[], out: Out): Promise<number>
}

function command<F extends FlagSpecs>(
  spec: CommandSpec<F>,
  run: (flags: FlagValues<F>, out: Out, positional: string | undefined) => Promise<number>,
): Command {
  return {
    spec,
    async execute(argv, out) {
      const line = parseCommandLine(spec, argv)
      if (line.help) {
        out(helpText(spec).trimEnd())
        return 0
      }
      return run(line.flags, out, line.positional)
    },
  }
}

export const COMMANDS: Readonly<Record<string, Command>> = {
  learn: command(LEARN, learnCommand),
  observe: command(OBSERVE, (f, out) => observeCommand(f, out)),
  run: command(RUN, runCommand),
  scenario: command(SCENARIO, (f, out, name) => scenarioCommand(name, f, out)),
  sweep: command(SWEEP, sweepCommand),
  transactions: command(TRANSACTIONS, transactionsCommand),
  worker: command(WORKER, workerCommand),
}

export function usage(): string {
  const lines = ['usage: eoscope <command> [flags]', '', 'commands:']
  for (const c of Object.values(COMMANDS)) lines.push(`  ${c.spec.name.padEnd(9)} ${c.spec.summary}`)
  lines.push('', "eoscope <command> --help lists the command's flags with their meaning and default.")
  return `${lines.join('\n')}\n`
}

/** Runs one command line; the exit status: 0 done, 1 failed or violated, 2 bad input. */
export async function runCli(
  argv: readonly string[],
  out: Out = (s) => process.stdout.write(`${s}\n`),
  err: Out = (s) => process.stderr.write(`${s}\n`),
): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' && rest[0] !== undefined ? COMMANDS[rest[0]] : undefined
    if (topic) return topic.execute(['--help'], out)
    ;(name === undefined ? err : out)(usage().trimEnd())
    return name === undefined ? 2 : 0
  }
  const cmd = Object.hasOwn(COMMANDS, name) ? COMMANDS[name]! : null
  try {
    if (!cmd)
      throw new UsageError(`unknown command ${JSON.stringify(name)}; known: ${Object.keys(COMMANDS).join(', ')}`)
    return await cmd.execute(rest, out)
  } catch (e) {
    if (e instanceof UnsupportedOnBackendError) {
      err(`eoscope ${name}: ${e.message}`)
      return 2
    }
    if (e instanceof UsageError) {
      err(`eoscope${cmd ? ` ${cmd.spec.name}` : ''}: ${e.message}`)
      err(
        cmd
          ? `${usageText(cmd.spec)}\n(eoscope ${cmd.spec.name} --help for each flag's meaning and default)`
          : usage().trimEnd(),
      )
      return 2
    }
    err(`eoscope: ${e instanceof Error ? e.message : String(e)}`)
    return 1
  }
}
