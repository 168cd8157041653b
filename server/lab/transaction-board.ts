// What the dashboard shows of transactions and transactional producers, kept from the engine's
// events (begin, end, producer init) and the broker's (a transaction aborted by the coordinator):
// recent transactions with their outcome and abort reason, totals since the lab started, and each
// transactional.id's epochs and fencings over time.

import type { ProducerTimeline, TxnView } from '../../lib/lab-protocol.ts'
import type { TxnEnded } from '../log/embedded/transaction-coordinator.ts'
import type { EngineEvent } from '../engine/telemetry.ts'

const MAX_TXNS = 120
const KEPT_ABORTS = 10
const MAX_PRODUCERS = 12
const MAX_EPOCHS = 24
const MAX_FENCINGS = 10

export class TransactionBoard {
  private readonly txns = new Map<string, TxnView>()
  private readonly counts = { committed: 0, aborted: 0 }
  /** The latest aborted transactions, kept whatever their age: aborts are what a user looks for. */
  private readonly abortedKept: TxnView[] = []
  private readonly timelines = new Map<string, ProducerTimeline>()
  /** The worker that last began a transaction or initialised each transactional.id. */
  private readonly owner = new Map<string, string>()

  /** @param isKilled tells whether a worker was killed (an abort after a kill is a crash, not a fencing). */
  constructor(private readonly isKilled: (workerId: string) => boolean) {}

  onEngineEvent(e: EngineEvent): void {
    switch (e.type) {
      case 'producer-init': {
        if (!e.transactionalId) return
        const tl = this.timelines.get(e.transactionalId)
        const previous = this.owner.get(e.transactionalId)
        if (tl && tl.epochs.length > 0 && previous !== undefined && previous !== e.workerId) {
          this.fencing(tl, e.atMs, `${e.workerId} called initTransactions: epoch ${e.epoch} fences ${previous}'s epoch ${tl.epochs.at(-1)!.epoch}`)
          // InitProducerId completes the previous owner's open transaction by aborting it before the
          // epoch bump. A cluster tells no client about that abort: this is when it is known to have happened.
          const reason = this.isKilled(previous) ? 'crash' : 'fenced'
          for (const t of this.txns.values()) if (t.transactionalId === e.transactionalId && t.outcome === 'open') this.end(t, 'aborted', e.atMs, reason)
        }
        this.owner.set(e.transactionalId, e.workerId)
        this.noteEpoch(e.transactionalId, e.producerId, e.epoch, e.atMs)
        return
      }
      case 'txn-begin': {
        this.noteEpoch(e.transactionalId, e.producerId, e.epoch, e.atMs)
        this.owner.set(e.transactionalId, e.workerId)
        const id = txnId(e.producerId, e.epoch, e.localTxnId)
        this.txns.set(id, {
          id,
          transactionalId: e.transactionalId,
          producerId: e.producerId,
          epoch: e.epoch,
          partitions: [],
          outputRecords: 0,
          changelogRecords: 0,
          offsetsCommitted: 0,
          beginMs: e.atMs,
          endMs: null,
          outcome: 'open',
          abortReason: null,
        })
        while (this.txns.size > MAX_TXNS) this.txns.delete(this.txns.keys().next().value!)
        return
      }
      case 'txn-end': {
        const t = this.txns.get(txnId(e.producerId, e.epoch, e.localTxnId))
        if (!t) return
        t.partitions = e.partitions
        t.outputRecords = e.outputRecords
        t.changelogRecords = e.changelogRecords
        t.offsetsCommitted = e.offsetsCommitted
        if (t.outcome === 'open') this.end(t, e.outcome, e.endMs, e.outcome === 'aborted' ? (e.reason === 'fenced' ? 'fenced' : 'error') : null)
        return
      }
    }
  }

  /** The coordinator ended a transaction: a client abort or commit the engine reports itself; a fencing or a timeout it cannot. */
  onCoordinatorTxnEnded(e: TxnEnded): void {
    if (e.outcome !== 'aborted' || e.reason === 'client' || e.reason === null) return
    const tl = this.timelines.get(e.transactionalId)
    if (tl) {
      this.fencing(tl, e.endMs, e.reason === 'timeout' ? 'transaction.timeout.ms expired: aborted and fenced by the coordinator' : 'a new owner called initTransactions: older epoch fenced, open transaction aborted')
    }
    const owner = this.owner.get(e.transactionalId)
    const reason = e.reason === 'timeout' ? 'timeout' : owner !== undefined && this.isKilled(owner) ? 'crash' : 'fenced'
    for (const t of this.txns.values()) if (t.transactionalId === e.transactionalId && t.outcome === 'open') this.end(t, 'aborted', e.endMs, reason)
  }

  private end(t: TxnView, outcome: 'committed' | 'aborted', endMs: number, reason: TxnView['abortReason']): void {
    t.outcome = outcome
    t.endMs = endMs
    t.abortReason = reason
    this.counts[outcome]++
    if (outcome === 'aborted') {
      this.abortedKept.push(t)
      if (this.abortedKept.length > KEPT_ABORTS) this.abortedKept.shift()
    }
  }

  private fencing(tl: ProducerTimeline, atMs: number, reason: string): void {
    tl.fencings.push({ atMs, reason })
    if (tl.fencings.length > MAX_FENCINGS) tl.fencings.shift()
  }

  private noteEpoch(transactionalId: string, producerId: number, epoch: number, atMs: number): void {
    let tl = this.timelines.get(transactionalId)
    if (!tl || tl.producerId !== producerId) {
      tl = { transactionalId, producerId, epochs: [], fencings: tl?.fencings ?? [], lastSequence: [] }
      this.timelines.delete(transactionalId)
      this.timelines.set(transactionalId, tl)
      while (this.timelines.size > MAX_PRODUCERS) this.timelines.delete(this.timelines.keys().next().value!)
    }
    if (tl.epochs.at(-1)?.epoch === epoch) return
    tl.epochs.push({ epoch, atMs })
    if (tl.epochs.length > MAX_EPOCHS) tl.epochs.shift()
  }

  /** The 40 latest transactions, with the kept aborts in front of them. */
  transactions(): TxnView[] {
    const recent = [...this.txns.values()].slice(-40)
    return [...this.abortedKept.filter((t) => !recent.includes(t)), ...recent]
  }

  totals(): { committed: number; aborted: number; open: number } {
    let open = 0
    for (const t of this.txns.values()) if (t.outcome === 'open') open++
    return { committed: this.counts.committed, aborted: this.counts.aborted, open }
  }

  producerTimelines(): ProducerTimeline[] {
    return [...this.timelines.values()]
  }
}

function txnId(producerId: number, epoch: number, localTxnId: number): string {
  return `${producerId}.${epoch}.${localTxnId}`
}
