// Which open transactions on a partition are hanging, by the rule of `kafka-transactions.sh
// find-hanging`: a producer holds a transaction open on the partition (DescribeProducers: its first
// offset), but no coordinator knows it as an ongoing transaction on that partition (no
// transactional id with that producer id, or one in another state, with another epoch, or without
// the partition). Nothing will ever write its marker: the last stable offset stays behind it until
// someone aborts it. An ongoing transaction past its transaction.timeout.ms is listed as overdue
// (its coordinator aborts it soon), not as hanging.

export interface OpenProducerState {
  topic: string
  partition: number
  producerId: number
  epoch: number
  coordinatorEpoch: number
  lastTimestampMs: number
  /** -1: no transaction open. */
  currentTxnStartOffset: number
}

export interface CoordinatorView {
  transactionalId: string
  producerId: number
  epoch: number
  state: string
  timeoutMs: number
  startTimeMs: number
  partitions: { topic: string; partition: number }[]
}

export type OpenTransactionVerdict = 'ongoing' | 'overdue' | 'hanging'

export interface OpenTransaction extends OpenProducerState {
  transactionalId: string | null
  verdict: OpenTransactionVerdict
  /** Why, in words. */
  reason: string
}

/** Classifies every open transaction of the partitions' producers against the coordinators' view. */
export function classifyOpenTransactions(
  producers: readonly OpenProducerState[],
  coordinators: readonly CoordinatorView[],
  nowMs: number,
): OpenTransaction[] {
  const byProducer = new Map(coordinators.map((c) => [c.producerId, c]))
  return producers
    .filter((p) => p.currentTxnStartOffset >= 0)
    .map((p) => {
      const c = byProducer.get(p.producerId)
      const at = `${p.topic}-${p.partition} from offset ${p.currentTxnStartOffset}`
      if (!c)
        return {
          ...p,
          transactionalId: null,
          verdict: 'hanging',
          reason:
            `producer ${p.producerId} holds a transaction open on ${at}, and no coordinator has a transactional ` +
            `id with that producer id`,
        }
      const here = c.partitions.some((x) => x.topic === p.topic && x.partition === p.partition)
      if (c.state !== 'Ongoing' || !here || c.epoch !== p.epoch) {
        const why =
          c.state !== 'Ongoing'
            ? `its coordinator says ${c.state}`
            : !here
              ? 'its coordinator does not list this partition in it'
              : `its coordinator is at epoch ${c.epoch}, the partition's transaction at ${p.epoch}`
        return {
          ...p,
          transactionalId: c.transactionalId,
          verdict: 'hanging',
          reason: `${c.transactionalId} holds a transaction open on ${at}, but ${why}`,
        }
      }
      if (c.startTimeMs >= 0 && nowMs - c.startTimeMs > c.timeoutMs) {
        return {
          ...p,
          transactionalId: c.transactionalId,
          verdict: 'overdue',
          reason:
            `${c.transactionalId} has been open ${nowMs - c.startTimeMs} ms, past its transaction.timeout.ms ` +
            `${c.timeoutMs}: its coordinator aborts it`,
        }
      }
      return {
        ...p,
        transactionalId: c.transactionalId,
        verdict: 'ongoing',
        reason: `${c.transactionalId} is ongoing on ${at}`,
      }
    })
}
