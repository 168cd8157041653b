import { describe, expect, it } from 'vitest'
import { parseCommandLine, UsageError } from './flags.ts'
import { recoveriesLine, RUN, runOptionsOf } from './run-command.ts'

function optionsOf(argv: string[]) {
  const line = parseCommandLine(RUN, argv)
  if (line.help) throw new Error('expected flags, got --help')
  return runOptionsOf(line.flags)
}

describe('eoscope run --prefill', () => {
  it('asks the run for a backlog written before the workers start', () => {
    expect(optionsOf(['--prefill', '--records', '1000']).prefill).toBe(true)
    expect(optionsOf(['--records', '1000']).prefill).toBe(false)
  })

  it('refuses faults, which fall while input is fed, and would silently not happen', () => {
    expect(() => optionsOf(['--prefill', '--kill-every', '200'])).toThrow(/--prefill measures a run without faults/)
    expect(() => optionsOf(['--prefill', '--drop-acks', '3'])).toThrow(/--prefill measures a run without faults/)
  })

  it('refuses a rate: a prefill writes as fast as it can', () => {
    expect(() => optionsOf(['--prefill', '--rate', '500'])).toThrow(UsageError)
    expect(() => optionsOf(['--prefill', '--rate', '500'])).toThrow(/--prefill .* takes no --rate/)
  })
})

describe("the summary's recoveries line", () => {
  const recoveryMedianAndMax =
    'gives the median of the measured recoveries (the mean of the middle two for an even count) and the maximum, ' +
    'in whole ms'
  it(recoveryMedianAndMax, () => {
    expect(
      recoveriesLine([
        { ms: 16056.14892578125 },
        { ms: 26293.738525390625 },
        { ms: null },
        { ms: 12000.4 },
        { ms: 14000.6 },
      ]),
    ).toBe('  recoveries            4 measured (recovery time), median 15028 ms, max 26294 ms')
    expect(recoveriesLine([{ ms: 900.2 }])).toMatch(/1 measured \(recovery time\), median 900 ms, max 900 ms$/)
  })

  it('is left out when no recovery completed', () => {
    expect(recoveriesLine([{ ms: null }])).toBeNull()
    expect(recoveriesLine([])).toBeNull()
  })
})
