// Each guided scenario is a test too: its expected evidence is asserted. They run on the system
// clock (they are the same scripts the dashboard and the CLI run), with outcomes asserted, never durations.

import { afterEach, describe, expect, it } from 'vitest'
import { SystemTime } from '../../log/time.ts'
import { HeadlessHost, runScenario, SCENARIOS } from './index.ts'

describe('guided scenarios', () => {
  let host: HeadlessHost | null = null
  afterEach(async () => {
    await host?.close()
    host = null
  })

  it.each(SCENARIOS.map((s) => [s.name, s] as const))('%s shows what it claims', async (_name, scenario) => {
    host = new HeadlessHost(new SystemTime(), 1)
    const result = await runScenario(scenario, host)
    expect(result.expectations.length).toBeGreaterThan(0)
    for (const e of result.expectations) expect.soft(e.holds, e.claim).toBe(true)
    expect(result.passed).toBe(true)
    expect(result.conclusion.length).toBeGreaterThan(20)
  }, 120_000)

  it('crash-before-commit reports duplicates and crash-before-commit-eos reports none, with an aborted transaction', async () => {
    host = new HeadlessHost(new SystemTime(), 7)
    const alos = await runScenario(SCENARIOS.find((s) => s.name === 'crash-before-commit')!, host)
    const eos = await runScenario(SCENARIOS.find((s) => s.name === 'crash-before-commit-eos')!, host)
    expect(alos.evidence.duplicates as number).toBeGreaterThan(0)
    expect(alos.evidence.duplicatesInReplayWindow).toBe(alos.evidence.duplicates)
    expect(eos.evidence.duplicates).toBe(0)
    expect(eos.evidence.abortedTransactions as number).toBeGreaterThanOrEqual(1)
  }, 120_000)
})
