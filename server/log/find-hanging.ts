// `kafka-transactions.sh describe`, `find-hanging` and `abort`, once, over any log connection's
// inspector (the embedded log's coordinator, or Kafka's KIP-664 requests): the CLI's
// `eoscope transactions` and the lab's Transactions view both read through here.

import { classifyOpenTransactions, type OpenTransaction } from './hanging-transactions.ts'
import type { CoordinatorTransaction, LogInspector, PartitionProducer, TopicPartition, TransactionsFilter } from './types.ts'

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

/** One read of the coordinators and the partitions' producers, and the open transactions classified against it. */
export async function describeTransactions(source: TransactionsSource, partitions: readonly TopicPartition[], filter: TransactionsFilter, nowMs: number): Promise<TransactionsReport> {
  const read = await source.transactions(partitions, filter)
  return { ...read, open: classifyOpenTransactions(read.producers, read.coordinators, nowMs) }
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
export async function abortHangingTransaction(source: TransactionsSource, target: HangingTarget, filter: TransactionsFilter, nowMs: () => number): Promise<AbortHangingResult> {
  const where = `${target.topic}-${target.partition}`
  const { open } = await describeTransactions(source, [{ topic: target.topic, partition: target.partition }], filter, nowMs())
  const t = open.find((x) => x.producerId === target.producerId)
  if (!t) return { ok: false, conflict: true, error: `producer ${target.producerId} holds no open transaction on ${where}: nothing to abort` }
  if (t.verdict !== 'hanging') {
    return { ok: false, conflict: true, error: `the transaction of producer ${target.producerId} on ${where} is ${t.verdict}, not hanging (${t.reason}); only a hanging transaction is aborted here: its coordinator ends this one` }
  }
  await source.abortTransaction(t)
  return { ok: true, aborted: t }
}

/** find-hanging --abort: every hanging transaction of the report, aborted in turn; returns those aborted. */
export async function abortAllHanging(source: TransactionsSource, report: TransactionsReport): Promise<OpenTransaction[]> {
  const aborted: OpenTransaction[] = []
  for (const t of report.open.filter((x) => x.verdict === 'hanging')) {
    await source.abortTransaction(t)
    aborted.push(t)
  }
  return aborted
}
