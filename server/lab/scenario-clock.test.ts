// A scenario's figures say which clock they come from (issue 34: lost-ack's 2 duplicates on the
// dashboard, 3 from `eoscope scenario lost-ack`; one ran on the system clock, the other in virtual
// time, and neither said so): the model's ("model (virtual time)") or a live lab's ("live, system
// clock"), in its first narrative line, its conclusion and the CLI's title.

import { describe, expect, it } from 'vitest'
import { scenarioText } from '../cli/scenario-command.ts'
import { MockTime, SystemTime, type Time } from '../log/time.ts'
import { runScenario, type Scenario } from './scenarios/scenario.ts'
import type { ScenarioHost } from '../runtime/scenario-setup.ts'

const doubled: Scenario = {
  name: 'lost-ack',
  title: 'A lost ack and the retry',
  summary: 'a retried batch without idempotence',
  async run(ctx) {
    ctx.expect('duplicates > 0', true)
    return `Without idempotence the retried batch was appended again (${ctx.figure('duplicates', 3)} duplicates).`
  },
}

const hostOn = (time: Time): ScenarioHost => ({
  time,
  seed: 1,
  backend: 'embedded',
  workerThreads: 'shared',
  start: () => Promise.reject(new Error('no lab in this test')),
})

describe('where a scenario’s figures come from', () => {
  it('in virtual time: the model, in the narrative, the conclusion and the CLI’s title', async () => {
    const r = await runScenario(doubled, hostOn(new MockTime()))
    expect(r.clock).toBe('virtual')
    expect(r.narrative[0]!.text).toMatch(/^model \(virtual time\): /)
    expect(r.conclusion).toBe(
      'Without idempotence the retried batch was appended again (3 duplicates). [model (virtual time)]',
    )
    const text = scenarioText(r, doubled.summary)
    expect(text[0]).toMatch(/^A lost ack and the retry · model \(virtual time\)\n/)
    expect(text.at(-1)).toContain('(3 duplicates). [model (virtual time)]')
  })

  it('on the system clock (the dashboard, --clock system, Kafka): live', async () => {
    const r = await runScenario(doubled, hostOn(new SystemTime()))
    expect(r.clock).toBe('system')
    expect(r.narrative[0]!.text).toMatch(/^live, system clock: /)
    expect(r.conclusion).toMatch(/\(3 duplicates\)\. \[live, system clock\]$/)
    expect(scenarioText(r, doubled.summary)[0]).toMatch(/^A lost ack and the retry · live, system clock\n/)
  })
})
