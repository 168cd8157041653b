// One bad value, the same words from the CLI as from REST and the socket (parseCommand,
// parseSweepRequest): both read the settings table and word a refusal with settingProblem.

import { describe, expect, it } from 'vitest'
import { parseSweepRequest } from '../../lib/experiment-protocol.ts'
import { parseCommand } from '../../lib/lab-protocol.ts'
import { settingProblem } from '../../lib/streams-config.ts'
import { type CommandSpec, parseCommandLine, UsageError } from './flags.ts'
import { RUN } from './run-command.ts'
import { SWEEP } from './sweep-command.ts'
import { sweepCommand } from './sweep-command.ts'

/** The CLI's message without its subject (`--flag: `). */
async function cliWords(spec: CommandSpec, argv: string[], run?: (flags: never) => Promise<number>): Promise<string> {
  try {
    const line = parseCommandLine(spec, argv)
    if (!line.help && run) await run(line.flags as never)
  } catch (e) {
    if (e instanceof UsageError) return e.message.replace(/^--[a-z-]+: /, '')
    throw e
  }
  throw new Error(`${argv.join(' ')} was accepted`)
}

/** REST's message without its subject (`invalid <command>: <field>: `). */
function restWords(r: { ok: true } | { ok: false; error: string }): string {
  if (r.ok) throw new Error('accepted')
  return r.error.replace(/^invalid [A-Za-z]+: [A-Za-z0-9.]+: /, '')
}

const sweepBody = { intervals: [100], guarantees: ['exactly_once'], repeat: 1, backend: 'embedded' }

describe('the same bad value gets the same words from the CLI and from REST', () => {
  it.each([
    [
      'a kill step out of range',
      ['--kill-at-step', '6'],
      parseCommand('killWorker', { workerId: 'worker-1', step: 6 }),
      'must be an integer from 1 to 5; got 6',
    ],
    [
      'a kill step that is no integer',
      ['--kill-at-step', '2.5'],
      parseCommand('killWorker', { workerId: 'worker-1', step: 2.5 }),
      'must be an integer from 1 to 5; got 2.5',
    ],
    [
      'an unknown guarantee',
      ['--guarantee', 'exactly-once'],
      parseCommand('setConfig', { 'processing.guarantee': 'exactly-once' }),
      'must be one of at_most_once, at_least_once, exactly_once, exactly_once_v2; got "exactly-once"',
    ],
  ])('eoscope run and the lab commands: %s', async (_, argv, rest, words) => {
    expect(await cliWords(RUN, argv)).toBe(words)
    expect(restWords(rest)).toBe(words)
  })

  it.each([
    [
      'too many repetitions',
      ['--repeat', '11'],
      { ...sweepBody, repeat: 11 },
      'must be an integer from 1 to 10; got 11',
    ],
    [
      'a negative seed',
      ['--seed', '-1'],
      { ...sweepBody, seed: -1 },
      'must be an integer from 0 to 2147483647; got -1',
    ],
    [
      'a commit interval beyond the sweep',
      ['--intervals', '100,60000'],
      { ...sweepBody, intervals: [100, 60_000] },
      'must be an integer from 1 to 30000; got 60000',
    ],
    [
      'an unknown guarantee',
      ['--guarantees', 'exactly_once,exactly_twice'],
      { ...sweepBody, guarantees: ['exactly_once', 'exactly_twice'] },
      'must be one of at_most_once, at_least_once, exactly_once, exactly_once_v2; got "exactly_twice"',
    ],
  ])('eoscope sweep and POST /api/experiments: %s', async (_, argv, body, words) => {
    expect(await cliWords(SWEEP, argv, (f) => sweepCommand(f, () => {}))).toBe(words)
    expect(restWords(parseSweepRequest(body)).replace(/^(intervals|guarantees)\.\d+: /, '')).toBe(words)
  })

  it('where the live lab narrows a range, both say the range that applies where the value was given', async () => {
    expect(await cliWords(RUN, ['--commit-interval-ms', '0'])).toBe(settingProblem('commit.interval.ms', 'run', 0))
    expect(restWords(parseCommand('setConfig', { 'commit.interval.ms': 0 }))).toBe(
      settingProblem('commit.interval.ms', 'lab', 0),
    )
    expect(settingProblem('commit.interval.ms', 'lab', 0)).toBe('must be an integer from 10 to 30000; got 0')
  })
})
