import { describe, expect, it } from 'vitest'
import { parseCommandLine, UsageError } from './flags.ts'
import { LEARN, learnCommand } from './learn-command.ts'
import { RUN, runOptionsOf } from './run-command.ts'

function flagsOf(argv: string[]) {
  const line = parseCommandLine(LEARN, argv)
  if (line.help) throw new Error('expected flags, got --help')
  return line.flags
}

describe('eoscope learn', () => {
  it('runs a chapter’s scenarios and prints whether its claim held, exit 0 when it did', async () => {
    const lines: string[] = []
    const code = await learnCommand(flagsOf(['--chapter', '2']), (s) => lines.push(s))
    expect(code).toBe(0)
    expect(lines[0]).toBe(
      '2 Three semantics: holds: at_most_once lost records, at_least_once duplicated them, exactly_once did neither',
    )
    expect(lines.slice(1)).toEqual([
      '    crash-after-commit: every claim holds',
      '    crash-before-commit: every claim holds',
      '    crash-before-commit-eos: every claim holds',
    ])
  }, 120_000)

  it('refuses a chapter that does not exist and brokers without Kafka', async () => {
    expect(() => flagsOf(['--chapter', '8'])).toThrow(/--chapter: must be an integer from 1 to 7/)
    await expect(learnCommand(flagsOf(['--brokers', 'x:1']), () => {})).rejects.toThrow(UsageError)
  })

  it('--idempotence off is refused under exactly-once and taken under at_most_once', () => {
    const line = parseCommandLine(RUN, ['--guarantee', 'at_most_once', '--idempotence', 'off'])
    if (line.help) throw new Error('expected flags')
    expect(runOptionsOf(line.flags).idempotence).toBe(false)
    const eos = parseCommandLine(RUN, ['--guarantee', 'exactly_once', '--idempotence', 'off'])
    if (eos.help) throw new Error('expected flags')
    expect(() => runOptionsOf(eos.flags)).toThrow(/only allowed with --guarantee at_least_once or at_most_once/)
  })
})
