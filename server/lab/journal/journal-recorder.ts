// What the lab writes to its journal: each event a runtime publishes that a reader of the lab
// needs (kills and the step they hit, pauses, stopped workers, fencings, group generations and
// their assignments, restores with their offsets, dropped acks, notices), each transaction's end
// (through the TransactionBoard's sink) and the lab's own commands (config, poison, reset).

import { orNone } from '../../../lib/kafka-none.ts'
import type { JournalFact, JournalLink } from '../../../lib/journal.ts'
import type { MarkerKind, TxnView } from '../../../lib/lab-protocol.ts'
import { partitionOfTask } from '../../../lib/task-id.ts'
import type { TxnHeld } from '../../log/embedded/transaction-coordinator.ts'
import type { LabEvent, RuntimeWording } from '../../runtime/lab-runtime.ts'
import { failureLabel } from '../lab-timeline.ts'
import type { Recovery } from '../../runtime/recovery-tracker.ts'
import type { TxnSink } from '../transaction-board.ts'
import type { LabJournal } from './lab-journal.ts'

/** The runtime's wording of its faults and its topic names, as the journal's labels use them. */
export interface RecorderContext {
  wording: RuntimeWording
  topics: { input: string; output: string; changelog: string }
}

/** How long a generation's assignments are gathered into one entry. */
const GATHER_MS = 1_000

type Generation = { generation: number; atMs: number; assignment: Record<string, string[]> }

export class JournalRecorder {
  private generation: Generation | null = null
  private readonly restores = new Map<string, { fromOffset: number; toOffset: number }>()
  private recovered = new Set<string>()
  /** Partition lists shared by the transactions that touch the same partitions (most of them). */
  private readonly partitionLists = new Map<string, string[]>()

  constructor(
    private readonly journal: LabJournal,
    private ctx: () => RecorderContext,
  ) {}

  /** A new runtime: a generation or restore under way belongs to the old one. */
  beginRun(): void {
    this.flush(Infinity)
    this.restores.clear()
    this.recovered = new Set()
    this.journal.beginRun()
  }

  onEvent(e: LabEvent): void {
    if ('source' in e) {
      if (e.type === 'group') this.onGroup(e.event)
      return
    }
    const words = this.ctx().wording
    const j = this.journal
    switch (e.type) {
      case 'worker-killed':
        j.append(
          { kind: 'kill', workerId: e.workerId, step: e.step },
          `${e.workerId} killed${words.killed}${e.step ? ` at step ${e.step}` : ''}`,
          { atMs: e.atMs },
        )
        break
      case 'worker-paused':
        j.append({ kind: 'pause', workerId: e.workerId }, `${e.workerId} paused${words.paused}`, { atMs: e.atMs })
        break
      case 'ack-dropped': {
        const links = e.batches
          .map((b) => this.link(b.topic, b.partition, b.baseOffset, b.baseOffset + b.count))
          .filter((l): l is JournalLink => l !== null)
        const label =
          `ack lost: producer ${orNone(e.producerId)} epoch ${orNone(e.epoch)}, sequences ` +
          `${e.batches.map((b) => orNone(b.baseSequence)).join(',')}`
        j.append(
          {
            kind: 'ack-dropped',
            producerId: e.producerId,
            epoch: e.epoch,
            sequences: e.batches.map((b) => b.baseSequence),
          },
          label,
          { atMs: e.atMs, links },
        )
        break
      }
      case 'worker-failed':
        j.append(
          { kind: 'worker-stopped', workerId: e.workerId, reason: 'error', error: e.error },
          failureLabel(e.workerId, e.error),
          { atMs: e.atMs },
        )
        break
      case 'worker-crashed': {
        const how =
          e.signal !== null ? `ended by ${e.signal}` : e.exitCode !== null ? `exit code ${e.exitCode}` : 'failed'
        j.append(
          {
            kind: 'worker-stopped',
            workerId: e.workerId,
            reason: 'crash',
            error: e.cause,
            exitCode: e.exitCode,
            signal: e.signal,
          },
          `${e.workerId} crashed (${how}): ${e.cause.slice(0, 120)}`,
          { atMs: e.atMs },
        )
        break
      }
      case 'task-migrated':
        j.append(fencedBy(e.workerId, e.reason), `${e.workerId}: ${e.reason.slice(0, 80)}`, { atMs: e.atMs })
        break
      case 'restore-start':
        this.restores.set(`${e.workerId}/${e.taskId}`, { fromOffset: e.fromOffset, toOffset: e.toOffset })
        break
      case 'restore-end':
        this.restored(e, e.atMs)
        break
      case 'runtime-notice':
        j.append({ kind: 'note', text: e.label, marker: e.marker }, e.label, { atMs: e.atMs })
        break
    }
  }

  /** A restore that read something (a task that starts on an empty changelog is not one). */
  private restored(e: Extract<LabEvent, { type: 'restore-end' }>, atMs: number): void {
    const { workerId, taskId, records } = e
    const started = this.restores.get(`${workerId}/${taskId}`)
    this.restores.delete(`${workerId}/${taskId}`)
    if (!started || records === 0) return
    const r = { fromOffset: e.fromOffset ?? started.fromOffset, toOffset: e.toOffset ?? started.toOffset }
    const p = partitionOfTask(taskId)
    const link = this.link(this.ctx().topics.changelog, p, r.fromOffset, Math.max(r.fromOffset, r.toOffset - 1))
    const fact: JournalFact = {
      kind: 'restore',
      taskId,
      workerId,
      fromOffset: r.fromOffset,
      toOffset: r.toOffset,
      records,
    }
    this.journal.append(
      fact,
      `${workerId} restored ${taskId}: ${records} changelog records, offsets ${r.fromOffset} to ${r.toOffset}`,
      { atMs, links: link ? [link] : [] },
    )
  }

  /** The embedded broker's group events: a member expired, and each generation's assignment (written once complete). */
  private onGroup(g: Extract<LabEvent, { source: 'broker'; type: 'group' }>['event']): void {
    if (g.type === 'member-expired') {
      this.journal.append({ kind: 'member-expired', memberId: g.memberId }, `${g.memberId} expired`, { atMs: g.atMs })
      return
    }
    if (g.type !== 'partitions-assigned') return
    if (this.generation !== null && this.generation.generation !== g.generationId) this.flush(Infinity)
    this.generation ??= { generation: g.generationId, atMs: g.atMs, assignment: {} }
    const input = this.ctx().topics.input
    const known = this.generation.assignment[g.memberId] ?? []
    const added = g.partitions.filter((p) => p.topic === input).map((p) => `${p.topic}-${p.partition}`)
    this.generation.assignment[g.memberId] = [...new Set([...known, ...added])]
  }

  /** Writes the generation being gathered once it is a second old (a rebalance's assignments come within it). */
  flush(nowMs: number): void {
    const g = this.generation
    if (g === null || nowMs - g.atMs < GATHER_MS) return
    this.generation = null
    const members = Object.keys(g.assignment).sort()
    const label =
      `generation ${g.generation}, assigned: ` +
      `${members.map((m) => `${m} ${g.assignment[m]!.map((p) => p.replace(/^.*-/, 'p')).join(',') || '-'}`).join('; ')}`
    this.journal.append({ kind: 'generation', generation: g.generation, members, assignment: g.assignment }, label, {
      atMs: g.atMs,
    })
  }

  /** Recoveries that completed since the last look. */
  noteRecoveries(recoveries: readonly Recovery[]): void {
    for (const r of recoveries) {
      if (r.t1 === null || this.recovered.has(r.id)) continue
      this.recovered.add(r.id)
      this.journal.append(
        { kind: 'recovered', workerId: r.workerId, recoveryMs: r.t1 - r.t0 },
        `recovered from the kill of ${r.workerId} in ${((r.t1 - r.t0) / 1000).toFixed(1)} s`,
        { atMs: r.t1 },
      )
    }
  }

  /** A timeline mark from the lab's own commands and health: a typed fact where the kind tells, else a note. */
  mark(kind: MarkerKind, label: string, atMs?: number, fact?: JournalFact): void {
    this.journal.append(fact ?? { kind: 'note', text: label, marker: kind }, label, { atMs })
  }

  /** The TransactionBoard's sink: each ended transaction becomes an entry; totals are read back. */
  readonly txns: TxnSink = {
    ended: (t, workerId, held) => this.txnEnded(t, workerId, held),
    counts: () => this.journal.txnCounts(),
  }

  private txnEnded(t: TxnView, workerId: string | undefined, held: readonly TxnHeld[] | null): void {
    if (t.outcome === 'open') return
    // A transaction begun but empty when the lab tore its runtime down never reached the broker: not an entry.
    if (
      t.abortReason === 'teardown' &&
      t.partitions.length === 0 &&
      t.outputRecords + t.changelogRecords + t.offsetsCommitted === 0
    )
      return
    const cause = t.outcome === 'aborted' ? (t.abortReason ?? 'error') : null
    const fact: JournalFact = {
      kind: 'txn',
      outcome: t.outcome,
      transactionalId: t.transactionalId,
      producerId: t.producerId,
      epoch: t.epoch,
      partitions: this.shared(t.partitions),
      outputRecords: t.outputRecords,
      changelogRecords: t.changelogRecords,
      offsetsCommitted: t.offsetsCommitted,
      beginMs: t.beginMs,
      cause,
      ...(workerId !== undefined ? { workerId } : {}),
    }
    // Offsets are kept for aborts, the evidence a reader looks for; a commit links its partitions (made when read).
    const links =
      t.outcome === 'aborted'
        ? (held ?? [])
            .map((h) => this.link(h.topic, h.partition, h.firstOffset, h.lastOffset + 1))
            .filter((l): l is JournalLink => l !== null)
        : []
    this.journal.append(fact, null, { atMs: t.endMs ?? undefined, links })
  }

  private shared(partitions: string[]): string[] {
    const key = partitions.join(' ')
    const known = this.partitionLists.get(key)
    if (known) return known
    if (this.partitionLists.size >= 512) this.partitionLists.clear()
    const list = [...partitions]
    this.partitionLists.set(key, list)
    return list
  }

  private link(topic: string, partition: number, fromOffset: number, toOffset: number): JournalLink | null {
    const t = this.ctx().topics
    const name =
      topic === t.input ? 'input' : topic === t.output ? 'output' : topic === t.changelog ? 'changelog' : null
    return name === null ? null : { topic: name, partition, fromOffset, toOffset }
  }
}

/**
 * A task migrated: fenced by the group (its generation or member id) or by a newer producer epoch, as its reason tells.
 */
export function fencedBy(workerId: string, reason: string): JournalFact {
  const txnId = /(?:for|of) (\S+?):? /.exec(reason)?.[1]
  const by = /generation|member/i.test(reason) ? 'generation' : 'epoch'
  return {
    kind: 'fenced',
    workerId,
    by,
    ...(txnId !== undefined && by === 'epoch' ? { transactionalId: txnId } : {}),
    detail: reason,
  }
}
