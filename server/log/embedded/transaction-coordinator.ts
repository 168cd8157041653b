// The transaction coordinator: transactional ids, producer ids and epochs, the transaction state
// machine, control markers and the transaction timeout.
//
// Epochs follow KIP-890 (transactions v2): InitProducerId bumps the epoch and fences every older
// one; ending a transaction bumps it again, so a delayed EndTxn or a late write of an earlier
// transaction carries an old epoch and can never commit or abort a later transaction.
//
//            AddPartitions / AddOffsets
//   Empty ───────────────────────────────▶ Ongoing ──EndTxn(commit)──▶ PrepareCommit ──markers──▶ CompleteCommit
//     ▲                                      │  │                                                     │
//     │                                      │  └──EndTxn(abort) / timeout──▶ PrepareAbort ──markers──▶ CompleteAbort
//     │                                      └──InitProducerId (new owner)──▶ PrepareEpochFence ──▶ PrepareAbort
//     └──────────────────────────────── (next transaction starts from CompleteCommit / CompleteAbort) ─┘

import { LogError } from '../errors.ts'
import type { ControlType, TopicPartition } from '../types.ts'
import { tpKey } from '../types.ts'

export type TxnState =
  | 'Empty'
  | 'Ongoing'
  | 'PrepareCommit'
  | 'PrepareAbort'
  | 'CompleteCommit'
  | 'CompleteAbort'
  | 'PrepareEpochFence'

/** The state machine as data: each state and the states it may be entered from. */
export const VALID_PREVIOUS_STATES: Readonly<Record<TxnState, readonly TxnState[]>> = {
  Empty: [],
  Ongoing: ['Empty', 'Ongoing', 'CompleteCommit', 'CompleteAbort'],
  PrepareCommit: ['Ongoing'],
  PrepareAbort: ['Ongoing', 'PrepareEpochFence'],
  CompleteCommit: ['PrepareCommit'],
  CompleteAbort: ['PrepareAbort'],
  PrepareEpochFence: ['Ongoing'],
}

export type AbortReason = 'client' | 'fenced' | 'timeout'

export interface TxnMetadata {
  readonly transactionalId: string
  producerId: number
  epoch: number
  state: TxnState
  timeoutMs: number
  partitions: Map<string, TopicPartition>
  /** Consumer groups whose offsets are part of this transaction (AddOffsetsToTxn). */
  groups: Set<string>
  startMs: number
  /** Counts the transactions of this transactional.id; the current one's number. */
  txnSeq: number
  /** The outcome of the last completed transaction, for an idempotent EndTxn retry. */
  lastOutcome: ControlType | null
  /** The last state change (or the id's creation). */
  updatedMs?: number
}

export interface TxnEnded {
  transactionalId: string
  producerId: number
  /** The epoch the transaction ran under. */
  epoch: number
  txnSeq: number
  partitions: TopicPartition[]
  groups: string[]
  outcome: 'committed' | 'aborted'
  reason: AbortReason | null
  startMs: number
  endMs: number
  /** What the transaction held on each partition (records and offsets), where the broker tells. */
  held?: TxnHeld[]
  /** Input offsets it committed (or would have), where the broker tells. */
  offsets?: number
}

/** A transaction's records on one partition. */
export interface TxnHeld {
  topic: string
  partition: number
  firstOffset: number
  lastOffset: number
  records: number
}

/** What the coordinator needs from the rest of the broker to write markers. */
export interface MarkerWriter {
  /** Returns what the transaction held on the partition, when known. */
  writeMarker(tp: TopicPartition, producerId: number, epoch: number, type: ControlType): TxnHeld | null | undefined
  /** Returns how many offsets the transaction held in the group, when known. */
  completeGroupTxn(groupId: string, producerId: number, type: ControlType): number | undefined
}

const MAX_EPOCH = 32_767

export class TransactionCoordinator {
  private readonly txns = new Map<string, TxnMetadata>()
  private nextProducerId = 1000
  private readonly listeners: ((e: TxnEnded) => void)[] = []

  constructor(
    private readonly markers: MarkerWriter,
    private readonly now: () => number,
  ) {}

  onTxnEnded(listener: (e: TxnEnded) => void): void {
    this.listeners.push(listener)
  }

  allocateProducerId(): number {
    return this.nextProducerId++
  }

  metadata(transactionalId: string): Readonly<TxnMetadata> | undefined {
    return this.txns.get(transactionalId)
  }

  all(): Readonly<TxnMetadata>[] {
    return [...this.txns.values()]
  }

  private transition(meta: TxnMetadata, to: TxnState): void {
    if (!VALID_PREVIOUS_STATES[to].includes(meta.state)) {
      throw new LogError(
        'INVALID_TXN_STATE',
        `transactional.id ${meta.transactionalId}: cannot go from ${meta.state} to ${to}`,
      )
    }
    meta.state = to
    meta.updatedMs = this.now()
  }

  private bumpEpoch(meta: TxnMetadata): void {
    if (meta.epoch >= MAX_EPOCH) {
      meta.producerId = this.allocateProducerId()
      meta.epoch = 0
    } else {
      meta.epoch += 1
    }
  }

  /**
   * InitProducerId. A new transactional.id gets a producer id at epoch 0. A known one has its
   * epoch bumped: every older epoch is fenced, and an open transaction is aborted.
   */
  initProducerId(transactionalId: string, timeoutMs: number): { producerId: number; epoch: number } {
    this.expireTimedOut()
    let meta = this.txns.get(transactionalId)
    if (!meta) {
      meta = {
        transactionalId,
        producerId: this.allocateProducerId(),
        epoch: 0,
        state: 'Empty',
        timeoutMs,
        partitions: new Map(),
        groups: new Set(),
        startMs: 0,
        txnSeq: 0,
        lastOutcome: null,
        updatedMs: this.now(),
      }
      this.txns.set(transactionalId, meta)
      return { producerId: meta.producerId, epoch: meta.epoch }
    }
    if (meta.state === 'Ongoing') {
      this.transition(meta, 'PrepareEpochFence')
      this.abort(meta, 'fenced')
    }
    this.bumpEpoch(meta)
    // The epoch before this bump belongs to a fenced producer now, not to the last EndTxn: its
    // EndTxn must be refused, not answered as a retry (which would hand it the new epoch).
    meta.lastOutcome = null
    meta.timeoutMs = timeoutMs
    return { producerId: meta.producerId, epoch: meta.epoch }
  }

  private checkProducer(
    meta: TxnMetadata | undefined,
    transactionalId: string,
    producerId: number,
    epoch: number,
  ): TxnMetadata {
    if (!meta) throw new LogError('INVALID_TXN_STATE', `unknown transactional.id ${transactionalId}`)
    if (producerId !== meta.producerId || epoch < meta.epoch) {
      throw new LogError(
        'PRODUCER_FENCED',
        `producer ${producerId} epoch ${epoch} of ${transactionalId} is fenced: the current one is producer ` +
          `${meta.producerId} epoch ${meta.epoch}`,
      )
    }
    if (epoch > meta.epoch)
      throw new LogError('INVALID_REQUEST', `epoch ${epoch} is newer than the coordinator's ${meta.epoch}`)
    return meta
  }

  private ensureOngoing(meta: TxnMetadata): void {
    if (meta.state === 'Ongoing') return
    this.transition(meta, 'Ongoing')
    meta.partitions.clear()
    meta.groups.clear()
    meta.startMs = this.now()
    meta.txnSeq += 1
  }

  /** AddPartitionsToTxn: partitions join the transaction when first written. */
  addPartitions(
    transactionalId: string,
    producerId: number,
    epoch: number,
    partitions: readonly TopicPartition[],
  ): number {
    this.expireTimedOut()
    const meta = this.checkProducer(this.txns.get(transactionalId), transactionalId, producerId, epoch)
    this.ensureOngoing(meta)
    for (const tp of partitions) meta.partitions.set(tpKey(tp.topic, tp.partition), tp)
    return meta.txnSeq
  }

  /** AddOffsetsToTxn: the group's offsets partition joins the transaction. */
  addOffsets(
    transactionalId: string,
    producerId: number,
    epoch: number,
    groupId: string,
    offsetsPartition: TopicPartition,
  ): void {
    this.expireTimedOut()
    const meta = this.checkProducer(this.txns.get(transactionalId), transactionalId, producerId, epoch)
    this.ensureOngoing(meta)
    meta.groups.add(groupId)
    meta.partitions.set(tpKey(offsetsPartition.topic, offsetsPartition.partition), offsetsPartition)
  }

  /** Whether a write of this producer to this partition belongs to its ongoing transaction. */
  isPartitionInTxn(transactionalId: string, producerId: number, epoch: number, tp: TopicPartition): boolean {
    const meta = this.checkProducer(this.txns.get(transactionalId), transactionalId, producerId, epoch)
    return meta.state === 'Ongoing' && meta.partitions.has(tpKey(tp.topic, tp.partition))
  }

  isGroupInTxn(transactionalId: string, producerId: number, epoch: number, groupId: string): boolean {
    const meta = this.checkProducer(this.txns.get(transactionalId), transactionalId, producerId, epoch)
    return meta.state === 'Ongoing' && meta.groups.has(groupId)
  }

  /**
   * EndTxn. Writes COMMIT or ABORT markers into every partition of the transaction, completes its
   * offsets in the groups, and bumps the epoch (KIP-890). Returns the producer's new epoch.
   */
  endTxn(transactionalId: string, producerId: number, epoch: number, want: ControlType): { epoch: number } {
    this.expireTimedOut()
    const meta = this.txns.get(transactionalId)
    // A retried EndTxn whose first attempt completed: same outcome, answered again (KIP-890).
    if (
      meta &&
      producerId === meta.producerId &&
      epoch === meta.epoch - 1 &&
      meta.lastOutcome === want &&
      meta.state !== 'Ongoing'
    ) {
      return { epoch: meta.epoch }
    }
    const m = this.checkProducer(meta, transactionalId, producerId, epoch)
    if (m.state !== 'Ongoing') {
      if (want === 'ABORT' && (m.state === 'Empty' || m.state === 'CompleteCommit' || m.state === 'CompleteAbort')) {
        // Aborting with nothing written is a no-op, as in Kafka.
        return { epoch: m.epoch }
      }
      throw new LogError(
        'INVALID_TXN_STATE',
        `transactional.id ${transactionalId} has no ongoing transaction (state ${m.state})`,
      )
    }
    if (want === 'COMMIT') {
      this.transition(m, 'PrepareCommit')
      this.complete(m, 'COMMIT', null)
    } else {
      this.abort(m, 'client')
    }
    this.bumpEpoch(m)
    return { epoch: m.epoch }
  }

  private abort(meta: TxnMetadata, reason: AbortReason): void {
    this.transition(meta, 'PrepareAbort')
    this.complete(meta, 'ABORT', reason)
  }

  private complete(meta: TxnMetadata, type: ControlType, reason: AbortReason | null): void {
    const markerEpoch = meta.epoch + 1
    const held: TxnHeld[] = []
    let offsets = 0
    for (const tp of meta.partitions.values()) {
      const h = this.markers.writeMarker(tp, meta.producerId, markerEpoch, type)
      if (h) held.push(h)
    }
    for (const g of meta.groups) offsets += this.markers.completeGroupTxn(g, meta.producerId, type) ?? 0
    this.transition(meta, type === 'COMMIT' ? 'CompleteCommit' : 'CompleteAbort')
    meta.lastOutcome = type
    const event: TxnEnded = {
      transactionalId: meta.transactionalId,
      producerId: meta.producerId,
      epoch: meta.epoch,
      txnSeq: meta.txnSeq,
      partitions: [...meta.partitions.values()],
      groups: [...meta.groups],
      outcome: type === 'COMMIT' ? 'committed' : 'aborted',
      reason,
      startMs: meta.startMs,
      endMs: this.now(),
      held,
      offsets,
    }
    for (const l of this.listeners) l(event)
  }

  /** Aborts every transaction open longer than its transaction.timeout.ms, fencing its producer. */
  expireTimedOut(): number {
    const now = this.now()
    let n = 0
    for (const meta of this.txns.values()) {
      if (meta.state === 'Ongoing' && now - meta.startMs > meta.timeoutMs) {
        this.abort(meta, 'timeout')
        this.bumpEpoch(meta)
        n++
      }
    }
    return n
  }

  /** Ongoing transactions, for the lab's views. */
  ongoing(): Readonly<TxnMetadata>[] {
    return [...this.txns.values()].filter((m) => m.state === 'Ongoing')
  }
}
