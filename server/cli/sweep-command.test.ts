import { describe, expect, it } from 'vitest'
import { parseCommandLine } from './flags.ts'
import { networkLabel } from './network-flags.ts'
import { runsOf, SWEEP, sweepCommand } from './sweep-command.ts'

const runs = (...argv: string[]) => {
  const line = parseCommandLine(SWEEP, argv)
  if (line.help) throw new Error('help')
  return runsOf(line.flags)
}

describe('eoscope sweep: how often each cell runs', () => {
  it('measured: from 6 runs (the fewest with a 95% interval) up to --max-runs (default 9) until precise', () => {
    expect(runs()).toEqual({ repeat: 6, maxRuns: 9 })
    expect(runs('--max-runs', '12')).toEqual({ repeat: 6, maxRuns: 12 })
    expect(runs('--max-runs', '4')).toEqual({ repeat: 4, maxRuns: 4 })
    expect(runs('--repeat', '7', '--max-runs', '10')).toEqual({ repeat: 7, maxRuns: 10 })
    expect(() => runs('--repeat', '8', '--max-runs', '5')).toThrow(/--max-runs 5 is below --repeat 8/)
  })

  it('a lone --repeat N, and the model: exactly N runs', () => {
    expect(runs('--repeat', '1')).toEqual({ repeat: 1 })
    expect(runs('--model')).toEqual({ repeat: 3 })
    expect(runs('--model', '--repeat', '1')).toEqual({ repeat: 1 })
    expect(() => runs('--model', '--max-runs', '9')).toThrow(/--max-runs does not apply to --model/)
  })
})

describe('eoscope sweep --network-latency-ms', () => {
  it('names the delay in the label of the sweep it makes', () => {
    const delay = { latencyMs: 1, jitterMs: 0 }
    expect(networkLabel({ request: delay, response: delay, seed: 1 })).toBe('kafka, workers 1 ms from the brokers')
    const jittered = { latencyMs: 5, jitterMs: 0.5 }
    expect(networkLabel({ request: jittered, response: jittered, seed: 1 })).toBe(
      'kafka, workers 5 ms from the brokers (+ up to 0.5 ms)',
    )
  })

  it('is refused on the embedded log', async () => {
    const line = parseCommandLine(SWEEP, ['--network-latency-ms', '1', '--model'])
    if (line.help) throw new Error('help')
    await expect(sweepCommand(line.flags, () => {})).rejects.toThrow(/need --backend kafka/)
  })
})
