// `eoscope transactions`: what `kafka-transactions.sh` shows, from eoscope's own KIP-664 requests:
// every transactional id the coordinators hold (state, timeout, producer, partitions), the open
// transactions of the given topics' partitions, which of them hang, and (asked explicitly) their
// abort. Read-only unless --abort-hanging.

import type { OpenTransaction } from '../log/hanging-transactions.ts'
import { abortAllHanging, describeTransactions } from '../log/find-hanging.ts'
import { KafkaTransactionAdmin } from '../log/kafka/kip664/kafka-transaction-admin.ts'
import type { TopicPartition } from '../log/types.ts'
import { type CommandSpec, type FlagValues, UsageError } from './flags.ts'
import { KAFKA_SECURITY_NOTE, kafkaSecurityForCommand, parseBrokers } from './backend.ts'

export const TRANSACTIONS = {
  name: 'transactions',
  summary:
    "a Kafka cluster's transactions as its coordinators and partition leaders hold them (KIP-664): every " +
    'transactional id, the open transactions of some topics, the hanging ones, and their abort',
  flags: {
    brokers: { type: 'string', value: 'HOST:PORT[,HOST:PORT]', meaning: 'the Kafka cluster (required)' },
    topics: {
      type: 'string',
      value: 'TOPIC[,TOPIC]',
      meaning:
        "topics whose partitions are searched for open transactions (each partition's producers, DescribeProducers)",
    },
    'abort-hanging': {
      type: 'boolean',
      meaning:
        'write an ABORT marker for every hanging transaction found in --topics (WriteTxnMarkers): the last ' +
        'stable offset moves past it',
    },
    json: { type: 'boolean', meaning: 'one JSON object instead of text' },
  },
  notes: [
    'A transaction hangs when a producer holds it open on a partition but no coordinator knows it as ongoing ' +
      "there (kafka-transactions.sh find-hanging's rule); an ongoing one past its transaction.timeout.ms is " +
      '"overdue": its coordinator aborts it.',
    KAFKA_SECURITY_NOTE,
  ],
} as const satisfies CommandSpec

type TransactionsFlags = FlagValues<(typeof TRANSACTIONS)['flags']>

async function partitionsOf(admin: KafkaTransactionAdmin, topics: string[]): Promise<TopicPartition[]> {
  const counts = await admin.partitionCounts(topics)
  return topics.flatMap((topic) =>
    Array.from({ length: counts.get(topic) ?? 0 }, (_, partition) => ({ topic, partition })),
  )
}

function line(t: OpenTransaction): string {
  return (
    `  ${t.verdict.padEnd(7)} ${t.topic}-${t.partition} from offset ${t.currentTxnStartOffset}: producer ` +
    `${t.producerId} epoch ${t.epoch}${t.transactionalId ? ` (${t.transactionalId})` : ''}: ${t.reason}`
  )
}

export async function transactionsCommand(f: TransactionsFlags, out: (s: string) => void): Promise<number> {
  const brokers = parseBrokers(f.brokers)
  const topics = (f.topics ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
  if (f['abort-hanging'] && topics.length === 0)
    throw new UsageError('--abort-hanging needs --topics: the partitions to search for hanging transactions')
  const admin = new KafkaTransactionAdmin({ brokers, clientId: 'eoscope-transactions', ...kafkaSecurityForCommand() })
  try {
    const report = await describeTransactions(admin, await partitionsOf(admin, topics), {}, Date.now())
    const { coordinators: described, open } = report
    const aborted = f['abort-hanging'] ? await abortAllHanging(admin, report) : []
    if (f.json) out(JSON.stringify({ transactions: described, open, aborted }))
    else {
      out(`${described.length} transactional id(s):`)
      for (const d of described) {
        const tps = d.partitions.map((p) => `${p.topic}-${p.partition}`).join(' ')
        out(
          `  ${d.transactionalId}: ${d.state}, producer ${d.producerId} epoch ${d.epoch}, ` +
            `transaction.timeout.ms ${d.timeoutMs}${d.partitions.length > 0 ? `, partitions ${tps}` : ''}`,
        )
      }
      if (topics.length > 0) {
        out(`${open.length} open transaction(s) in ${topics.join(', ')}:`)
        for (const t of open) out(line(t))
      }
      for (const t of aborted)
        out(`aborted ${t.topic}-${t.partition} from offset ${t.currentTxnStartOffset} (producer ${t.producerId})`)
    }
    return 0
  } finally {
    await admin.close()
  }
}
