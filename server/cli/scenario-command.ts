// `eoscope scenario NAME [--seed N] [--json] [--backend kafka --brokers …]`: one guided fault
// scenario, headless. Exit 0 when the evidence shows what the scenario claims, 1 when it does not,
// 2 on bad input. On the embedded log by default in virtual time (the model's costs, exact: the
// same seed gives the same evidence on every run); --clock system runs it on the system clock, as
// the dashboard does (measured). On Kafka each lab is a fresh application of worker processes
// behind the ack-drop proxy, on the real clock.

import { SystemTime } from '../log/time.ts'
import {
  CLOCK_LABEL,
  runScenario,
  runScenarioInVirtualTime,
  SCENARIOS,
  scenarioByName,
  type ScenarioResult,
} from '../lab/scenarios/index.ts'
import type { Scenario } from '../lab/scenarios/scenario.ts'
import { HeadlessHost, type ScenarioHost } from '../runtime/scenario-setup.ts'
import { SETTINGS } from '../../lib/streams-config.ts'
import { type CommandSpec, type FlagValues, UsageError } from './flags.ts'
import { BACKENDS, capabilitiesOf, kafkaSecurityForCommand, parseBrokers } from './backend.ts'
import type { KafkaClientConfig } from '../log/kafka/kafka-connection.ts'
import { requireCapability } from '../log/capabilities.ts'

export const CLOCKS = ['virtual', 'system'] as const

const NAMES = SCENARIOS.map((s) => s.name).join(', ')

export const SCENARIO = {
  name: 'scenario',
  summary:
    'one guided fault scenario, headless (a seeded script sets a lab up, injects its fault and states what the ' +
    'evidence shows); exit 0 when every expectation holds, 1 otherwise',
  positional: { name: 'NAME', meaning: `the scenario: ${NAMES}` },
  flags: {
    seed: { type: 'setting', setting: 'seed', default: SETTINGS.seed.default },
    json: { type: 'boolean', meaning: 'print the result as one JSON object' },
    backend: {
      type: 'choice',
      choices: BACKENDS,
      default: 'embedded',
      meaning: 'the log: every scenario runs on both',
    },
    brokers: { type: 'string', value: 'HOST:PORT[,HOST:PORT]', meaning: 'the Kafka cluster (--backend kafka)' },
    clock: {
      type: 'choice',
      choices: CLOCKS,
      default: 'virtual',
      meaning:
        'virtual: simulated time with the model costs (a CPU cost per record, the latency model), exact and ' +
        'repeatable for a seed; system: the real clock and CPU, as on the dashboard (measured, varies with the ' +
        'load). --backend kafka: always the real clock',
    },
  },
  notes: [['scenarios:', ...SCENARIOS.map((s) => `  ${s.name}\n      ${s.summary}`)].join('\n')],
} as const satisfies CommandSpec

type ScenarioFlags = FlagValues<(typeof SCENARIO)['flags']>

export async function scenarioCommand(
  name: string | undefined,
  f: ScenarioFlags,
  out: (s: string) => void,
): Promise<number> {
  if (name === undefined) throw new UsageError(`name a scenario: ${NAMES}`)
  const scenario = scenarioByName(name)
  if (!scenario) throw new UsageError(`unknown scenario ${JSON.stringify(name)}; known: ${NAMES}`)
  if (f.backend === 'embedded' && f.brokers !== undefined) throw new UsageError('--brokers needs --backend kafka')
  const client: KafkaClientConfig | null =
    f.backend === 'kafka'
      ? { brokers: parseBrokers(f.brokers), clientId: 'eoscope-scenario', ...kafkaSecurityForCommand() }
      : null
  // lost-ack loses an ack in the embedded broker, or on Kafka in the ack-drop
  // proxy: the backend's reason when it cannot.
  if (name === 'lost-ack')
    requireCapability(capabilitiesOf(f.backend, { route: 'ack-drop-proxy', client: client ?? {} }), 'drop-acks')
  const result = client !== null ? await runOnKafka(client, scenario, f.seed) : await runOn(f.clock, scenario, f.seed)
  if (f.json) out(JSON.stringify({ ...result, clockLabel: CLOCK_LABEL[result.clock] }))
  else for (const line of scenarioText(result, scenario.summary)) out(line)
  return result.passed ? 0 : 1
}

/**
 * The summary as printed: its title names the clock its figures come from (the model's by default,
 * the dashboard's live lab measures on the system clock), as its conclusion does.
 */
export function scenarioText(result: ScenarioResult, summary: string): string[] {
  return [
    `${result.title} · ${CLOCK_LABEL[result.clock]}\n${summary}\n`,
    ...result.narrative.map((n) => `  +${String(n.atMs).padStart(6)} ms  ${n.text}`),
    '',
    ...result.expectations.map((e) =>
      e.undecided !== undefined
        ? `  not distinguishable ${e.claim}: ${e.undecided}`
        : `  ${e.holds ? 'holds ' : 'FAILS '} ${e.claim}`,
    ),
    `\n${result.conclusion}`,
  ]
}

export async function runOnKafka(client: KafkaClientConfig, scenario: Scenario, seed: number): Promise<ScenarioResult> {
  const { KafkaScenarioHost } = await import('../runtime/kafka/kafka-scenario-host.ts')
  const host = new KafkaScenarioHost(seed, { client, applicationIdPrefix: `eoscope-scenario-${scenario.name}` })
  try {
    return await runKeepingNarrative(scenario, host)
  } finally {
    await host.close()
  }
}

export async function runOn(clock: (typeof CLOCKS)[number], scenario: Scenario, seed: number): Promise<ScenarioResult> {
  if (clock === 'virtual') return runScenarioInVirtualTime(scenario, seed)
  const host = new HeadlessHost(new SystemTime(), seed)
  try {
    return await runKeepingNarrative(scenario, host)
  } finally {
    await host.close()
  }
}

/**
 * A scenario that gives up (a wait that saw no progress) has no result to print; what it had said
 * until then goes to stderr before the error, so the failure tells how far it got.
 */
async function runKeepingNarrative(scenario: Scenario, host: ScenarioHost): Promise<ScenarioResult> {
  const said: string[] = []
  try {
    return await runScenario(scenario, host, (n) => said.push(`  +${String(n.atMs).padStart(6)} ms  ${n.text}`))
  } catch (e) {
    process.stderr.write(
      `eoscope: scenario ${scenario.name} stopped; it had said:\n` +
        `${said.length > 0 ? said.join('\n') : '  (nothing)'}\n`,
    )
    throw e
  }
}
