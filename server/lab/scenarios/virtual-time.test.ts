// Seeded means repeatable: a scenario in virtual time gives the same evidence on every run.

import { describe, expect, it } from 'vitest'
import { runScenarioInVirtualTime, scenarioByName } from './index.ts'

describe('scenarios in virtual time', () => {
  it('crash-before-commit twice with the same seed: the same evidence, narrative and expectations', async () => {
    const scenario = scenarioByName('crash-before-commit')!
    const a = await runScenarioInVirtualTime(scenario, 1)
    const b = await runScenarioInVirtualTime(scenario, 1)
    expect(a.passed).toBe(true)
    expect(a.evidence.duplicates as number).toBeGreaterThan(0)
    expect(b).toEqual(a)
  }, 180_000)

  it('another seed gives another run', async () => {
    const scenario = scenarioByName('crash-before-commit-eos')!
    const a = await runScenarioInVirtualTime(scenario, 1)
    const b = await runScenarioInVirtualTime(scenario, 2)
    expect(a.passed && b.passed).toBe(true)
    expect(b.evidence).not.toEqual(a.evidence)
  }, 180_000)
})
