// The Transactions view: the lab's transactional ids as their coordinators hold them and the
// producers of its input, output and changelog partitions as their leaders hold them, read through
// the log's inspector (find-hanging.ts, the same code `eoscope transactions` runs), whatever the
// backend; and the two actions on it: the abort of a hanging transaction (refused for any other)
// and the fault that makes one, where the backend offers it.

import type { CommandPayload, CommandResult, LabCommand } from '../../lib/lab-protocol.ts'
import type { LabTopicRole } from '../../lib/log-range.ts'
import {
  MAX_COORDINATOR_ROWS,
  MAX_PRODUCER_ROWS,
  type CoordinatorRow,
  type ProducerStateRow,
  type TransactionsViewData,
} from '../../lib/transactions-view.ts'
import type { JournalFact, JournalLink } from '../../lib/journal.ts'
import { refusal } from '../log/capabilities.ts'
import {
  abortHangingTransaction,
  describeTransactions,
  transactionsSource,
  type TransactionsReport,
} from '../log/find-hanging.ts'
import type { TopicPartition, TransactionsFilter } from '../log/types.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'
import type { TxnSink } from './transaction-board.ts'

const ROLES: readonly LabTopicRole[] = ['input', 'output', 'changelog']

/** What the book needs of a runtime. */
type Target = Pick<LabRuntime, 'connection' | 'topics' | 'partitions' | 'groupId'>

/** The lab's transactional ids are `<application.id>-<slot or task>`. */
export function labFilter(rt: Pick<LabRuntime, 'groupId'>): TransactionsFilter {
  return { transactionalIdPrefix: `${rt.groupId}-` }
}

export function labPartitions(rt: Pick<LabRuntime, 'topics' | 'partitions'>): TopicPartition[] {
  return ROLES.flatMap((role) =>
    Array.from({ length: rt.partitions }, (_, partition) => ({ topic: rt.topics[role], partition })),
  )
}

function roleOf(rt: Pick<LabRuntime, 'topics'>, topic: string): LabTopicRole | null {
  return ROLES.find((r) => rt.topics[r] === topic) ?? null
}

/**
 * The view's rows from one report: open transactions first (hanging before overdue
 * before ongoing), then the rest, bounded.
 */
export function transactionsView(
  report: TransactionsReport,
  rt: Pick<LabRuntime, 'topics'>,
  readAtMs: number,
  injectUnavailable: string | null,
  aborts: ReadonlyMap<string, CoordinatorRow['lastAbort']> = new Map(),
): TransactionsViewData {
  const open = new Map(report.open.map((t) => [`${t.topic}\u0000${t.partition}\u0000${t.producerId}`, t]))
  const names = new Map(report.coordinators.map((c) => [c.producerId, c.transactionalId]))
  const rank = { hanging: 0, overdue: 1, ongoing: 2 } as const
  const producers: ProducerStateRow[] = report.producers.flatMap((p) => {
    const role = roleOf(rt, p.topic)
    if (role === null) return []
    const t = open.get(`${p.topic}\u0000${p.partition}\u0000${p.producerId}`)
    return [
      {
        topic: p.topic,
        partition: p.partition,
        role,
        producerId: p.producerId,
        epoch: p.epoch,
        lastSequence: p.lastSequence,
        firstOffset: p.currentTxnStartOffset >= 0 ? p.currentTxnStartOffset : null,
        transactionalId: t?.transactionalId ?? names.get(p.producerId) ?? null,
        verdict: t?.verdict ?? null,
        reason: t?.reason ?? null,
      },
    ]
  })
  producers.sort(
    (a, b) =>
      (a.verdict === null ? 3 : rank[a.verdict]) - (b.verdict === null ? 3 : rank[b.verdict]) ||
      ROLES.indexOf(a.role) - ROLES.indexOf(b.role) ||
      a.partition - b.partition ||
      b.producerId - a.producerId,
  )
  const coordinators: CoordinatorRow[] = report.coordinators.map((c) => ({
    transactionalId: c.transactionalId,
    producerId: c.producerId,
    epoch: c.epoch,
    state: c.state,
    timeoutMs: c.timeoutMs,
    startTimeMs: c.startTimeMs >= 0 ? c.startTimeMs : null,
    lastUpdateMs: c.lastUpdateMs,
    partitions: c.partitions.map((tp) => `${tp.topic}-${tp.partition}`),
    lastAbort: aborts.get(c.transactionalId) ?? null,
  }))
  coordinators.sort(
    (a, b) =>
      Number(b.startTimeMs !== null) - Number(a.startTimeMs !== null) ||
      a.transactionalId.localeCompare(b.transactionalId),
  )
  return {
    readAtMs,
    coordinators: coordinators.slice(0, MAX_COORDINATOR_ROWS),
    producers: producers.slice(0, MAX_PRODUCER_ROWS),
    producerCount: producers.length,
    hanging: report.open.filter((t) => t.verdict === 'hanging').length,
    injectUnavailable,
  }
}

/** Writes an entry to the lab's journal. */
export type JournalWrite = (fact: JournalFact, label: string, links: JournalLink[]) => void

export interface TransactionsBookDeps {
  /** The runtime on screen. */
  runtime: () => Target
  now: () => number
  journal: JournalWrite
  /** After an action changed a partition: the lab reads its partitions again. */
  changed: () => void
}

const OWNED = ['abortHangingTransaction', 'injectHangingTransaction'] as const
type Owned = (typeof OWNED)[number]

/**
 * The view the lab shows, read at the pace of its other slow parts; only the
 * latest read of the runtime on screen is shown.
 */
export class TransactionsBook {
  private shown: { rt: Target; view: TransactionsViewData } | null = null
  private reads = 0
  private reading = false
  /** Per transactional id, its last aborted transaction as the lab's transaction board saw it. */
  private aborts = new Map<string, CoordinatorRow['lastAbort']>()

  constructor(private readonly deps: TransactionsBookDeps) {}

  /** The board's sink, passed on: each aborted transaction is also noted here, by transactional id. */
  tee(sink: TxnSink): TxnSink {
    this.aborts = new Map()
    return {
      ended: (t, workerId, held) => {
        if (t.outcome === 'aborted')
          this.aborts.set(t.transactionalId, { cause: t.abortReason, epoch: t.epoch, atMs: t.endMs ?? this.deps.now() })
        sink.ended(t, workerId, held)
      },
      counts: () => sink.counts(),
    }
  }

  /** The commands this book runs. */
  static owns(command: LabCommand): command is Extract<LabCommand, { name: Owned }> {
    return (OWNED as readonly string[]).includes(command.name)
  }

  /** The snapshot's part: the latest view of the runtime on screen (none before its first read). */
  part(): { transactionsView?: TransactionsViewData } {
    return this.shown !== null && this.shown.rt === this.deps.runtime() ? { transactionsView: this.shown.view } : {}
  }

  /** One read, skipped while the previous one is still running (a slow cluster). */
  async refresh(rt: Target): Promise<void> {
    if (this.reading) return
    this.reading = true
    try {
      await this.read(rt)
    } finally {
      this.reading = false
    }
  }

  private async read(rt: Target): Promise<void> {
    const source = transactionsSource(rt.connection.inspector())
    if (source === null) return
    const n = ++this.reads
    const latest = () => rt === this.deps.runtime() && n === this.reads
    try {
      const report = await describeTransactions(source, labPartitions(rt), labFilter(rt), this.deps.now())
      if (latest())
        this.shown = {
          rt,
          view: transactionsView(
            report,
            rt,
            this.deps.now(),
            refusal(rt.connection.capabilities, 'hanging-transaction'),
            this.aborts,
          ),
        }
    } catch (e) {
      if (latest() && this.shown?.rt === rt)
        this.shown = { rt, view: { ...this.shown.view, error: (e as Error).message } }
      throw e
    }
  }

  async run(rt: Target, command: Extract<LabCommand, { name: Owned }>): Promise<CommandResult> {
    const r =
      command.name === 'abortHangingTransaction'
        ? await this.abortHanging(rt, command.payload)
        : await this.injectHanging(rt, command.payload)
    if (r.ok) {
      await this.read(rt).catch(() => {})
      this.deps.changed()
    }
    return r
  }

  /**
   * Aborts the producer's transaction on the partition when it is hanging, and journals what the
   * ABORT marker released. Refused (a conflict, nothing written) for a transaction that is not.
   */
  private async abortHanging(rt: Target, target: CommandPayload<'abortHangingTransaction'>): Promise<CommandResult> {
    if (target.partition >= rt.partitions)
      return { ok: false, error: `partition ${target.partition} does not exist: the lab has ${rt.partitions}` }
    const inspector = rt.connection.inspector()
    const source = transactionsSource(inspector)
    if (source === null) return { ok: false, error: 'this log connection reads no transactions' }
    const tp = { topic: rt.topics[target.topic], partition: target.partition }
    const before = await inspector.offsets(tp)
    const r = await abortHangingTransaction(
      source,
      { ...tp, producerId: target.producerId },
      labFilter(rt),
      this.deps.now,
    )
    if (!r.ok) return { ok: false, error: r.error, conflict: true }
    const after = await inspector.offsets(tp)
    const t = r.aborted
    // Its records lie in [first offset, the HW read before the abort): the ABORT marker went at or after that HW.
    const label =
      `aborted the hanging transaction of producer ${t.producerId} (epoch ` +
      `${t.epoch}${t.transactionalId ? `, ${t.transactionalId}` : ''}) ` +
      `on ${tp.topic}-${tp.partition}: offsets ${t.currentTxnStartOffset} to ${before.highWatermark - 1} ` +
      `released; LSO ${before.lastStableOffset} → ${after.lastStableOffset}, HW ${after.highWatermark}`
    this.deps.journal(
      {
        kind: 'hanging-aborted',
        topic: tp.topic,
        partition: tp.partition,
        producerId: t.producerId,
        epoch: t.epoch,
        transactionalId: t.transactionalId,
        fromOffset: t.currentTxnStartOffset,
        toOffset: before.highWatermark,
        lastStableOffset: after.lastStableOffset,
        highWatermark: after.highWatermark,
      },
      label,
      [
        {
          topic: target.topic,
          partition: target.partition,
          fromOffset: t.currentTxnStartOffset,
          toOffset: before.highWatermark,
        },
      ],
    )
    return { ok: true, message: label }
  }

  /** The fault: a hanging transaction on one partition, where the backend can make one. */
  private async injectHanging(rt: Target, target: CommandPayload<'injectHangingTransaction'>): Promise<CommandResult> {
    const refused = refusal(rt.connection.capabilities, 'hanging-transaction')
    if (refused !== null) return { ok: false, error: refused }
    if (target.partition >= rt.partitions)
      return { ok: false, error: `partition ${target.partition} does not exist: the lab has ${rt.partitions}` }
    if (!rt.connection.injectHangingTransaction)
      return { ok: false, error: 'this log connection cannot make a hanging transaction' }
    const tp = { topic: rt.topics[target.topic], partition: target.partition }
    const h = await rt.connection.injectHangingTransaction(tp)
    const label =
      `fault: a hanging transaction on ${tp.topic}-${tp.partition} from offset ${h.firstOffset} (producer ` +
      `${h.producerId}, which no coordinator knows)`
    this.deps.journal(
      {
        kind: 'hanging-injected',
        topic: tp.topic,
        partition: tp.partition,
        producerId: h.producerId,
        firstOffset: h.firstOffset,
      },
      label,
      [{ topic: target.topic, partition: target.partition, fromOffset: h.firstOffset, toOffset: h.firstOffset + 1 }],
    )
    return { ok: true, message: label }
  }
}
