// Headless scenarios in virtual time: the same scripts on a MockTime, with the model's costs
// (MODEL_COSTS: the latency model and a CPU cost per record) as the only cost, so that a seed gives
// the same evidence to the record on every run, whatever the machine's load. The dashboard's live
// lab runs the same scripts on the system clock.

import { MODEL_COSTS } from '../../log/embedded/latency-model.ts'
import { MockTime } from '../../log/time.ts'
import { runScenario, type Scenario, type ScenarioResult } from './scenario.ts'
import { HeadlessHost } from '../../runtime/scenario-setup.ts'

/** Virtual time a scenario may take before it is given up (far beyond any script's own waits). */
const MAX_VIRTUAL_MS = 3_600_000

/**
 * Runs one scenario headless on a fresh virtual clock, and closes its labs. `inspect`: reads the
 * labs it ran (the last one holds the records its links point at) before they are closed.
 */
export async function runScenarioInVirtualTime(
  scenario: Scenario,
  seed: number,
  inspect?: (result: ScenarioResult, host: HeadlessHost) => Promise<void>,
): Promise<ScenarioResult> {
  const time = new MockTime()
  const host = new HeadlessHost(time, seed, MODEL_COSTS)
  try {
    const result = await time.runUntilSettled(runScenario(scenario, host), MAX_VIRTUAL_MS)
    if (inspect) await time.runUntilSettled(inspect(result, host), MAX_VIRTUAL_MS)
    return result
  } finally {
    await time.runUntilSettled(host.close(), MAX_VIRTUAL_MS)
  }
}
