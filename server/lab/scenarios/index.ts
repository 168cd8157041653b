import type { Scenario } from './scenario.ts'
import { crashBeforeCommitEosScenario, crashBeforeCommitScenario } from './crash-before-commit.ts'
import { crashAfterCommitScenario } from './crash-after-commit.ts'
import { lostAckScenario } from './lost-ack.ts'
import { zombieScenario } from './zombie.ts'
import { hangingTransactionScenario } from './hanging-transaction.ts'
import { isolationScenario } from './isolation.ts'
import { commitIntervalScenario } from './commit-interval.ts'

export const SCENARIOS: readonly Scenario[] = [
  crashBeforeCommitScenario,
  crashBeforeCommitEosScenario,
  crashAfterCommitScenario,
  lostAckScenario,
  zombieScenario,
  hangingTransactionScenario,
  isolationScenario,
  commitIntervalScenario,
]

export function scenarioByName(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name)
}

export { CLOCK_LABEL, runScenario, type ScenarioResult } from './scenario.ts'
export { runScenarioInVirtualTime } from './virtual-time.ts'
