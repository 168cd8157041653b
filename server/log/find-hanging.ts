// `kafka-transactions.sh describe`, `find-hanging` and `abort`, once, over any log connection's
// inspector (the embedded log's coordinator, or Kafka's KIP-664 requests): the CLI's
// `eoscope transactions` and the lab's Transactions view both read through here.

import { classifyOpenTransactions, type OpenTransaction } from './hanging-transactions.ts'
import type {
  CoordinatorTransaction,
  LogInspector,
  PartitionProducer,
  TopicPartition,
  TransactionsFilter,
} from './types.ts'

/** What reads and aborts transactions: an inspector that offers both. */
export type TransactionsSource = Required<Pick<LogInspector, 'transactions' | 'abortTransaction'>>

/** The inspector's transactions source, or null when this log connection offers none. */
export function transactionsSource(inspector: LogInspector): TransactionsSource | null {
  const { transactions, abortTransaction } = inspector
  if (!transactions || !abortTransaction) return null
  return { transactions: transactions.bind(inspector), abortTransaction: abortTransaction.bind(inspector) }
}

export interface TransactionsReport {
  coordinators: CoordinatorTransaction[]
  producers: PartitionProducer[]
  /** Every open transaction of the partitions' producers, classified: ongoing, overdue or hanging. */
  open: OpenTransaction[]
}

/**
 * One read of the coordinators and the partitions' producers, and the open transactions classified
 * against it. The two are not read at one instant: a transaction whose markers were being written
 * can show open on its partition while its coordinator already says CompleteCommit. So a
 * transaction found hanging is read again, and stays hanging only if the second read finds it
 * hanging too, from the same first offset; otherwise the second read's view of that producer on
 * that partition is reported (or none, once it has closed). A hanging transaction never moves on
 * by itself, so it survives the re-read; one between states does not.
 */
export async function describeTransactions(
  source: TransactionsSource,
  partitions: readonly TopicPartition[],
  filter: TransactionsFilter,
  nowMs: number,
): Promise<TransactionsReport> {
  const read = await source.transactions(partitions, filter)
  const open = classifyOpenTransactions(read.producers, read.coordinators, nowMs)
  const candidates = open.filter((t) => t.verdict === 'hanging')
  if (candidates.length === 0) return { ...read, open }
  const where = (t: { topic: string; partition: number }) => `${t.topic}-${t.partition}`
  const reread = new Map(candidates.map((t) => [where(t), { topic: t.topic, partition: t.partition }]))
  const again = await source.transactions([...reread.values()], filter)
  const second = classifyOpenTransactions(again.producers, again.coordinators, nowMs)
  const same = (a: OpenTransaction, b: OpenTransaction) => a.producerId === b.producerId && where(a) === where(b)
  const settled = candidates.flatMap((c) => {
    const now = second.find((t) => same(t, c))
    if (!now) return []
    if (now.verdict !== 'hanging') return [now]
    return now.currentTxnStartOffset === c.currentTxnStartOffset ? [now] : []
  })
  const known = new Set(read.coordinators.map((c) => c.transactionalId))
  return {
    coordinators: [...read.coordinators, ...again.coordinators.filter((c) => !known.has(c.transactionalId))],
    producers: [
      ...read.producers.filter((p) => !reread.has(where(p))),
      ...again.producers.filter((p) => reread.has(where(p))),
    ],
    open: [...open.filter((t) => t.verdict !== 'hanging'), ...settled],
  }
}

/** Which open transaction to abort: a producer's, on one partition. */
export interface HangingTarget {
  topic: string
  partition: number
  producerId: number
}

export type AbortHangingResult =
  | { ok: true; aborted: OpenTransaction }
  /** conflict: the transaction is not hanging (or not open): refused, nothing written. */
  | { ok: false; conflict: true; error: string }

/**
 * Reads the partition again and aborts the producer's open transaction there only when it is
 * classified hanging now; anything else (ongoing, overdue, none open) is refused and nothing is written.
 */
export async function abortHangingTransaction(
  source: TransactionsSource,
  target: HangingTarget,
  filter: TransactionsFilter,
  nowMs: () => number,
): Promise<AbortHangingResult> {
  const where = `${target.topic}-${target.partition}`
  const { open } = await describeTransactions(
    source,
    [{ topic: target.topic, partition: target.partition }],
    filter,
    nowMs(),
  )
  const t = open.find((x) => x.producerId === target.producerId)
  if (!t)
    return {
      ok: false,
      conflict: true,
      error: `producer ${target.producerId} holds no open transaction on ${where}: nothing to abort`,
    }
  if (t.verdict !== 'hanging') {
    return {
      ok: false,
      conflict: true,
      error:
        `the transaction of producer ${target.producerId} on ${where} is ${t.verdict}, not hanging (${t.reason}); ` +
        `only a hanging transaction is aborted here: its coordinator ends this one`,
    }
  }
  await source.abortTransaction(t)
  return { ok: true, aborted: t }
}

/** find-hanging --abort: every hanging transaction of the report, aborted in turn; returns those aborted. */
export async function abortAllHanging(
  source: TransactionsSource,
  report: TransactionsReport,
): Promise<OpenTransaction[]> {
  const aborted: OpenTransaction[] = []
  for (const t of report.open.filter((x) => x.verdict === 'hanging')) {
    await source.abortTransaction(t)
    aborted.push(t)
  }
  return aborted
}
