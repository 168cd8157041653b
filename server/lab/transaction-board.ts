// What the dashboard shows of transactions and transactional producers, kept from the engine's
// events (begin, end, producer init) and the broker's (a transaction aborted by the coordinator):
// recent transactions with their outcome and abort reason, totals since the lab started, and each
// transactional.id's epochs and fencings over time. Each transaction's end goes to a TxnSink (the
// lab's journal), and the totals are read back from it: one number for one fact.

import type { ProducerTimeline, TxnView } from '../../lib/lab-protocol.ts'
import type { TxnEnded, TxnHeld } from '../log/embedded/transaction-coordinator.ts'
import type { EngineEvent } from '../engine/telemetry.ts'

const MAX_TXNS = 120
/**
 * Open transactions are kept past MAX_TXNS: a killed worker's open transaction ends only when a new
 * owner initialises its transactional.id, a session timeout later (10 s on Kafka: some 600 other
 * transactions at 60 a second). Bounded too, for transactions whose end never arrives.
 */
const MAX_OPEN_TXNS = 256
const KEPT_ABORTS = 10
const MAX_PRODUCERS = 12
const MAX_EPOCHS = 24
const MAX_FENCINGS = 10

/** Where ended transactions go, and where their totals are read (teardown aborts are not counted). */
export interface TxnSink {
  ended(t: TxnView, workerId: string | undefined, held: readonly TxnHeld[] | null): void
  counts(): { committed: number; aborted: number }
}

/** A sink that only counts (a board on its own, in tests). */
export function countingSink(): TxnSink {
  const counts = { committed: 0, aborted: 0 }
  return {
    ended: (t) => {
      if (t.outcome !== 'open' && t.abortReason !== 'teardown') counts[t.outcome]++
    },
    counts: () => ({ ...counts }),
  }
}

export class TransactionBoard {
  private readonly txns = new Map<string, TxnView>()
  /** Ends after this are the lab's own teardown. */
  private closing = false
  /** The latest aborted transactions, kept whatever their age: aborts are what a user looks for. */
  private readonly abortedKept: TxnView[] = []
  private readonly timelines = new Map<string, ProducerTimeline>()
  /** The worker that last began a transaction or initialised each transactional.id. */
  private readonly owner = new Map<string, string>()
  /** The broker's latest end of each transactional.id's transaction (its records' offsets), on a log that tells. */
  private readonly brokerEnds = new Map<string, TxnEnded>()

  /**
   * @param isKilled tells whether a worker was killed (an abort after a kill is a crash, not a fencing).
   * @param changelog tells a changelog topic from an output topic (records the broker says a transaction held).
   */
  constructor(
    private readonly isKilled: (workerId: string) => boolean,
    private readonly sink: TxnSink = countingSink(),
    private readonly changelog: (topic: string) => boolean = (topic) => topic.endsWith('-changelog'),
  ) {}

  onEngineEvent(e: EngineEvent): void {
    switch (e.type) {
      case 'producer-init': {
        if (!e.transactionalId) return
        const tl = this.timelines.get(e.transactionalId)
        const previous = this.owner.get(e.transactionalId)
        if (tl && tl.epochs.length > 0 && previous !== undefined && previous !== e.workerId) {
          this.fencing(
            tl,
            e.atMs,
            `${e.workerId} called initTransactions: epoch ${e.epoch} fences ${previous}'s epoch ` +
              `${tl.epochs.at(-1)!.epoch}`,
          )
          // InitProducerId completes the previous owner's open transaction by aborting it before the
          // epoch bump. A cluster tells no client about that abort: this is when it is known to have happened.
          const reason = this.isKilled(previous) ? 'crash' : 'fenced'
          for (const t of this.txns.values())
            if (t.transactionalId === e.transactionalId && t.outcome === 'open')
              this.end(t, 'aborted', e.atMs, reason, null)
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
        this.evictEnded()
        return
      }
      case 'txn-end': {
        const t = this.txns.get(txnId(e.producerId, e.epoch, e.localTxnId))
        if (!t) return
        t.partitions = e.partitions
        t.outputRecords = e.outputRecords
        t.changelogRecords = e.changelogRecords
        t.offsetsCommitted = e.offsetsCommitted
        if (e.endTxnMs !== undefined) t.endTxnMs = e.endTxnMs
        if (e.sendOffsetsMs !== undefined) t.sendOffsetsMs = e.sendOffsetsMs
        const b = this.brokerEnds.get(e.transactionalId)
        const broker = b !== undefined && b.producerId === e.producerId && b.epoch === e.epoch ? b : null
        if (t.outcome === 'open')
          this.end(
            t,
            e.outcome,
            e.endMs,
            e.outcome === 'aborted' ? (e.reason === 'fenced' ? 'fenced' : 'error') : null,
            broker,
          )
        return
      }
    }
  }

  /**
   * The coordinator ended a transaction: a client abort or commit the engine reports
   * itself; a fencing or a timeout it cannot.
   */
  onCoordinatorTxnEnded(e: TxnEnded): void {
    this.brokerEnds.set(e.transactionalId, e)
    if (this.brokerEnds.size > MAX_TXNS) this.brokerEnds.delete(this.brokerEnds.keys().next().value!)
    if (e.outcome !== 'aborted' || e.reason === 'client' || e.reason === null) return
    const tl = this.timelines.get(e.transactionalId)
    if (tl) {
      this.fencing(
        tl,
        e.endMs,
        e.reason === 'timeout'
          ? 'transaction.timeout.ms expired: aborted and fenced by the coordinator'
          : 'a new owner called initTransactions: older epoch fenced, open transaction aborted',
      )
    }
    const owner = this.owner.get(e.transactionalId)
    const reason = e.reason === 'timeout' ? 'timeout' : owner !== undefined && this.isKilled(owner) ? 'crash' : 'fenced'
    for (const t of this.txns.values())
      if (t.transactionalId === e.transactionalId && t.outcome === 'open') this.end(t, 'aborted', e.endMs, reason, e)
  }

  /** The lab tears this runtime down: what is open now, or ends from here on, is the teardown's doing. */
  teardown(atMs: number): void {
    this.closing = true
    for (const t of this.txns.values()) if (t.outcome === 'open') this.end(t, 'aborted', atMs, 'teardown', null)
  }

  /** What the broker says an aborted transaction held, when its worker could not say it (a kill, a fencing). */
  private fillHeld(t: TxnView, e: TxnEnded): void {
    const held = (e.held ?? []).filter((h) => h.topic !== '__consumer_offsets')
    if (held.length === 0 || t.partitions.length > 0) return
    t.partitions = held.map((h) => `${h.topic}-${h.partition}`)
    t.changelogRecords = held.filter((h) => this.changelog(h.topic)).reduce((n, h) => n + h.records, 0)
    t.outputRecords = held.reduce((n, h) => n + h.records, 0) - t.changelogRecords
    t.offsetsCommitted = e.offsets ?? t.offsetsCommitted
  }

  private end(
    t: TxnView,
    outcome: 'committed' | 'aborted',
    endMs: number,
    reason: TxnView['abortReason'],
    broker: TxnEnded | null,
  ): void {
    if (broker !== null) this.fillHeld(t, broker)
    t.outcome = outcome
    t.endMs = endMs
    t.abortReason = outcome === 'aborted' && this.closing ? 'teardown' : reason
    this.sink.ended(t, this.owner.get(t.transactionalId), broker?.held ?? null)
    if (outcome === 'aborted' && t.abortReason !== 'teardown') {
      this.abortedKept.push(t)
      if (this.abortedKept.length > KEPT_ABORTS) this.abortedKept.shift()
    }
  }

  /** Drops the oldest ended transactions past MAX_TXNS; open ones only past MAX_OPEN_TXNS. */
  private evictEnded(): void {
    if (this.txns.size <= MAX_TXNS) return
    let open = 0
    for (const t of this.txns.values()) if (t.outcome === 'open') open++
    for (const [id, t] of this.txns) {
      if (this.txns.size <= MAX_TXNS) return
      if (t.outcome !== 'open') this.txns.delete(id)
      else if (open > MAX_OPEN_TXNS) {
        this.txns.delete(id)
        open--
      }
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
    return { ...this.sink.counts(), open }
  }

  producerTimelines(): ProducerTimeline[] {
    return [...this.timelines.values()]
  }

  /** Each transactional.id's owner: the worker that last began a transaction or initialised it. */
  ownerOf(transactionalId: string): string | undefined {
    return this.owner.get(transactionalId)
  }
}

function txnId(producerId: number, epoch: number, localTxnId: number): string {
  return `${producerId}.${epoch}.${localTxnId}`
}
