// Each guided scenario is a test too: its expected evidence is asserted. They run in virtual time
// (the same scripts the dashboard and the CLI run; `eoscope scenario` runs them in virtual time by
// default): the model's costs, exact for a seed, so what they assert (counts, orderings, and the
// recovery and throughput of commit-interval, which are model figures here) does not depend on how
// busy the machine is. On the system clock those two would be measurements, not checks.

import { describe, expect, it } from 'vitest'
import { runScenarioInVirtualTime, SCENARIOS } from './index.ts'

describe('guided scenarios', () => {
  it.each(SCENARIOS.map((s) => [s.name, s] as const))(
    '%s shows what it claims',
    async (_name, scenario) => {
      const result = await runScenarioInVirtualTime(scenario, 1)
      expect(result.expectations.length).toBeGreaterThan(0)
      for (const e of result.expectations) expect.soft(e.holds, e.claim).toBe(true)
      expect(result.passed).toBe(true)
      expect(result.conclusion.length).toBeGreaterThan(20)
    },
    120_000,
  )

  const crashScenariosReport =
    'crash-before-commit reports duplicates and crash-before-commit-eos reports none, with an aborted transaction'
  it(crashScenariosReport, async () => {
    const alos = await runScenarioInVirtualTime(SCENARIOS.find((s) => s.name === 'crash-before-commit')!, 7)
    const eos = await runScenarioInVirtualTime(SCENARIOS.find((s) => s.name === 'crash-before-commit-eos')!, 7)
    expect(alos.evidence.duplicates as number).toBeGreaterThan(0)
    expect(alos.evidence.duplicatesInReplayWindow).toBe(alos.evidence.duplicates)
    expect(eos.evidence.duplicates).toBe(0)
    expect(eos.evidence.abortedTransactions as number).toBeGreaterThanOrEqual(1)
  }, 120_000)
})
