// `eoscope observe`: an application eoscope did not start, watched read-only on a Kafka cluster
// (server/observe/application-observer.ts): its group and generations, its transactions, the open
// and hanging ones on its topics, LSO/HW, lag and committed throughput. Samples every
// --interval-ms until --samples are taken (or forever with --samples 0); --json prints one JSON
// object per sample. With --format, the validator runs on its --input and --output topics (and
// changelog) at each sample (server/observe/observe-validation.ts). Exit status 1 when the last
// sample found a hanging transaction or a violation, or the validator could not run.

import { ApplicationObserver, type ObserveTarget } from '../observe/application-observer.ts'
import { kafkaObserveSource } from '../observe/kafka-observe-source.ts'
import { observeReport } from '../observe/observe-report.ts'
import { RECORD_FORMAT_MEANING, RECORD_FORMATS } from '../observe/observe-validation.ts'
import { parseObserveTarget } from '../observe/observe-target.ts'
import { type CommandSpec, type FlagValues, UsageError } from './flags.ts'
import { KAFKA_SECURITY_NOTE, kafkaSecurityForCommand, parseBrokers } from './backend.ts'

export const OBSERVE = {
  name: 'observe',
  summary:
    'watch an application eoscope did not start (a Kafka Streams app, say) on a Kafka cluster, read-only: its ' +
    'group and generations, its transactions, hanging ones, LSO/HW, lag and throughput',
  flags: {
    'application-id': {
      type: 'string',
      value: 'ID',
      meaning: "the application's application.id: its group id and its transactional ids' prefix (required)",
    },
    brokers: {
      type: 'string',
      value: 'HOST:PORT[,HOST:PORT]',
      meaning: 'the Kafka cluster',
      defaultText: 'KAFKA_BROKERS',
    },
    output: {
      type: 'string',
      value: 'TOPIC[,TOPIC]',
      meaning: 'topics the application writes (its sinks): their LSO/HW, open transactions and markers',
    },
    input: {
      type: 'string',
      value: 'TOPIC[,TOPIC]',
      meaning: 'topics it reads, besides those its members are assigned (before it has members, say)',
    },
    format: {
      type: 'string',
      value: RECORD_FORMATS.join('|'),
      meaning:
        'the record format of its topics: run the validator on --input and --output (one topic each) and its changelog',
    },
    changelog: {
      type: 'string',
      value: 'TOPIC',
      meaning: "its state store's changelog, checked by the validator",
      defaultText: '<application.id>-aggregates-changelog',
    },
    'dead-letter': {
      type: 'string',
      value: 'TOPIC',
      meaning: 'where it sends input records that do not parse (none: it skips them)',
    },
    'interval-ms': {
      type: 'number',
      meaning: 'time between samples',
      range: { min: 100, max: 3_600_000 },
      integer: true,
      default: 2_000,
    },
    samples: {
      type: 'number',
      meaning: 'samples to take, then stop (0: until interrupted)',
      range: { min: 0, max: Number.MAX_SAFE_INTEGER },
      integer: true,
      default: 1,
    },
    json: { type: 'boolean', meaning: 'one JSON object per sample instead of text' },
  },
  notes: [
    'Read-only: no group is joined, no offset committed, nothing written. The generations come from the group ' +
      "coordinator's own records in __consumer_offsets (DescribeGroups has none for a classic group).",
    "Transactional ids are those starting with '<application.id>-', as Kafka Streams names them; a transaction " +
      'hangs when a producer holds it open on a partition and no coordinator knows it there ' +
      "(kafka-transactions.sh find-hanging's rule).",
    `--format eoscope: ${RECORD_FORMAT_MEANING.eoscope}. The validator reads the input up to the group's ` +
      `committed offsets and the output and changelog read_committed, from their log start, each sample only ` +
      `what is new; the application is judged exactly-once when its producers have transactional ids named after ` +
      `it, at-least-once otherwise. Open transactions are not judged: a running application has them.`,
    'Exit status 1 when the last sample found a hanging transaction (abort it with eoscope transactions ' +
      '--abort-hanging), or a violation of the guarantee, or the validator could not run.',
    KAFKA_SECURITY_NOTE,
  ],
} as const satisfies CommandSpec

type ObserveFlags = FlagValues<(typeof OBSERVE)['flags']>

export async function observeCommand(
  f: ObserveFlags,
  out: (s: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  if (env.EOSCOPE_BACKEND !== undefined && env.EOSCOPE_BACKEND !== 'kafka')
    throw new UsageError(
      `observe watches an application on a Kafka cluster; EOSCOPE_BACKEND=${env.EOSCOPE_BACKEND} has none (the ` +
        `embedded log holds only eoscope's own lab)`,
    )
  const target = targetOf(f)
  const brokers = parseBrokers(f.brokers ?? env.KAFKA_BROKERS)
  const source = kafkaObserveSource({ brokers, clientId: 'eoscope-observe', ...kafkaSecurityForCommand(env) })
  try {
    const observer = new ApplicationObserver(source, target)
    const samples = f.samples ?? 1
    let failing = false
    for (let i = 0; samples === 0 || i < samples; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, f['interval-ms'] ?? 2_000))
      const s = await observer.sample()
      failing =
        s.hanging.length > 0 ||
        (target.validation !== undefined && (s.validation === null || s.validation.violations.length > 0))
      if (f.json) out(JSON.stringify(s))
      else for (const line of observeReport(s)) out(line)
    }
    return failing ? 1 : 0
  } finally {
    await source.close()
  }
}

/** The flags as a target (server/observe/observe-target.ts, shared with the /observe page). */
function targetOf(f: ObserveFlags): ObserveTarget {
  if (!f['application-id'])
    throw new UsageError('--application-id is required: the application.id of the application to observe')
  if (f.format === undefined && (f.changelog !== undefined || f['dead-letter'] !== undefined))
    throw new UsageError('--changelog and --dead-letter are for the validator: give --format too')
  try {
    return parseObserveTarget({
      applicationId: f['application-id'],
      input: f.input,
      output: f.output,
      format: f.format,
      changelog: f.changelog,
      deadLetter: f['dead-letter'],
    })
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(e.message)
    throw e
  }
}
