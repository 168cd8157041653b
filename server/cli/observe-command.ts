// `eoscope observe`: an application eoscope did not start, watched read-only on a Kafka cluster
// (server/observe/application-observer.ts): its group and generations, its transactions, the open
// and hanging ones on its topics, LSO/HW, lag and committed throughput. Samples every
// --interval-ms until --samples are taken (or forever with --samples 0); --json prints one JSON
// object per sample. Exit status 1 when the last sample found a hanging transaction.

import { ApplicationObserver } from '../observe/application-observer.ts'
import { kafkaObserveSource } from '../observe/kafka-observe-source.ts'
import { observeReport } from '../observe/observe-report.ts'
import { type CommandSpec, type FlagValues, UsageError } from './flags.ts'
import { KAFKA_SECURITY_NOTE, kafkaSecurityForCommand, parseBrokers } from './backend.ts'

export const OBSERVE = {
  name: 'observe',
  summary: 'watch an application eoscope did not start (a Kafka Streams app, say) on a Kafka cluster, read-only: its group and generations, its transactions, hanging ones, LSO/HW, lag and throughput',
  flags: {
    'application-id': { type: 'string', value: 'ID', meaning: "the application's application.id: its group id and its transactional ids' prefix (required)" },
    brokers: { type: 'string', value: 'HOST:PORT[,HOST:PORT]', meaning: 'the Kafka cluster', defaultText: 'KAFKA_BROKERS' },
    output: { type: 'string', value: 'TOPIC[,TOPIC]', meaning: 'topics the application writes (its sinks): their LSO/HW, open transactions and markers' },
    input: { type: 'string', value: 'TOPIC[,TOPIC]', meaning: "topics it reads, besides those its members are assigned (before it has members, say)" },
    'interval-ms': { type: 'number', meaning: 'time between samples', range: { min: 100, max: 3_600_000 }, integer: true, default: 2_000 },
    samples: { type: 'number', meaning: 'samples to take, then stop (0: until interrupted)', range: { min: 0, max: Number.MAX_SAFE_INTEGER }, integer: true, default: 1 },
    json: { type: 'boolean', meaning: 'one JSON object per sample instead of text' },
  },
  notes: [
    'Read-only: no group is joined, no offset committed, nothing written. The generations come from the group coordinator\'s own records in __consumer_offsets (DescribeGroups has none for a classic group).',
    "Transactional ids are those starting with '<application.id>-', as Kafka Streams names them; a transaction hangs when a producer holds it open on a partition and no coordinator knows it there (kafka-transactions.sh find-hanging's rule).",
    'Exit status 1 when the last sample found a hanging transaction (abort it with eoscope transactions --abort-hanging).',
    KAFKA_SECURITY_NOTE,
  ],
} as const satisfies CommandSpec

type ObserveFlags = FlagValues<(typeof OBSERVE)['flags']>

const topicList = (s: string | undefined) => (s ?? '').split(',').map((t) => t.trim()).filter((t) => t.length > 0)

export async function observeCommand(f: ObserveFlags, out: (s: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const applicationId = f['application-id']
  if (!applicationId) throw new UsageError('--application-id is required: the application.id of the application to observe')
  if (env.EOSCOPE_BACKEND !== undefined && env.EOSCOPE_BACKEND !== 'kafka') throw new UsageError(`observe watches an application on a Kafka cluster; EOSCOPE_BACKEND=${env.EOSCOPE_BACKEND} has none (the embedded log holds only eoscope's own lab)`)
  const brokers = parseBrokers(f.brokers ?? env.KAFKA_BROKERS)
  const source = kafkaObserveSource({ brokers, clientId: 'eoscope-observe', ...kafkaSecurityForCommand(env) })
  try {
    let observer: ApplicationObserver
    try {
      observer = new ApplicationObserver(source, { applicationId, output: topicList(f.output), input: topicList(f.input) })
    } catch (e) {
      if (e instanceof RangeError) throw new UsageError(e.message)
      throw e
    }
    const samples = f.samples ?? 1
    let hanging = 0
    for (let i = 0; samples === 0 || i < samples; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, f['interval-ms'] ?? 2_000))
      const s = await observer.sample()
      hanging = s.hanging.length
      if (f.json) out(JSON.stringify(s))
      else for (const line of observeReport(s)) out(line)
    }
    return hanging > 0 ? 1 : 0
  } finally {
    await source.close()
  }
}
