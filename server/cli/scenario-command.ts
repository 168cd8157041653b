// `eoscope scenario NAME [--seed N] [--json]`: one guided fault scenario, headless.
// Exit 0 when the evidence shows what the scenario claims, 1 when it does not, 2 on bad input.

import { SystemTime } from '../log/time.ts'
import { HeadlessHost, runScenario, SCENARIOS, scenarioByName } from '../lab/scenarios/index.ts'
import { parseFlags, UsageError } from './args.ts'

export const SCENARIO_USAGE = `eoscope scenario ${SCENARIOS.map((s) => s.name).join('|')} [--seed N] [--json] [--backend embedded]`

export async function scenarioCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const [name, ...rest] = argv
  if (!name || name.startsWith('--')) throw new UsageError(`name a scenario: ${SCENARIOS.map((s) => s.name).join(', ')}`)
  const scenario = scenarioByName(name)
  if (!scenario) throw new UsageError(`unknown scenario ${JSON.stringify(name)}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`)
  const f = parseFlags(rest, { seed: { kind: 'int', min: 0, max: 2 ** 31 - 1 }, json: { kind: 'bool' }, backend: { kind: 'string', choices: ['embedded', 'kafka'] }, brokers: { kind: 'string' } })
  if (f.backend === 'kafka') {
    throw new UsageError(
      name === 'lost-ack'
        ? 'lost-ack cannot run on Kafka: a real broker cannot be made to drop the ack of a request it appended'
        : `${name} runs on the embedded backend only: its script reads the broker's own state (last stable offsets, control markers, producer epochs), which the Kafka backend does not expose to the lab; on Kafka, run the same faults with \`eoscope run --backend kafka --kill-at-step 5\``,
    )
  }
  const host = new HeadlessHost(new SystemTime(), (f.seed as number | undefined) ?? 1)
  try {
    const result = await runScenario(scenario, host)
    if (f.json) out(JSON.stringify(result))
    else {
      out(`${result.title}\n${scenario.summary}\n`)
      for (const n of result.narrative) out(`  +${String(n.atMs).padStart(6)} ms  ${n.text}`)
      out('')
      for (const e of result.expectations) out(`  ${e.holds ? 'holds ' : 'FAILS '} ${e.claim}`)
      out(`\n${result.conclusion}`)
    }
    return result.passed ? 0 : 1
  } finally {
    await host.close()
  }
}
