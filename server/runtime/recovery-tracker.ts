// Recovery after a kill, as docs/measures.md defines it: t0 (kill), position at kill per owned
// partition, t1 (committed offsets reached those positions), and five phases that add up to t1 - t0:
// detection, rebalance, fence/abort, restore, catch-up. Fed with events; pure of I/O.

import { isExactlyOnce, type ProcessingGuarantee } from '../../lib/streams-config.ts'
import type { RecoveryPhases } from '../../lib/lab-protocol.ts'

export interface KilledPartition {
  partition: number
  /** The offset up to which the worker had consumed records at t0. */
  positionAtKill: number
  /** The group's committed input offset at t0 (null: none yet, read from 0). */
  committedAtKill: number | null
  /**
   * The input offset up to which the broker had acknowledged the worker's output at t0 (null: not
   * reported). Under at_most_once the commit runs ahead of it: [ackedAtKill, committedAtKill) is
   * the window a kill cuts, records committed and never produced (lostWindow).
   */
  ackedAtKill?: number | null
}

/** The records a kill cut under at_most_once: committed at t0 and never acknowledged; null when none. */
export function lostWindow(p: KilledPartition): { partition: number; from: number; to: number } | null {
  if (p.ackedAtKill == null || p.committedAtKill === null || p.committedAtKill <= p.ackedAtKill) return null
  return { partition: p.partition, from: p.ackedAtKill, to: p.committedAtKill }
}

export interface Recovery {
  id: string
  workerId: string
  memberId: string | null
  transactionalIds: string[]
  guarantee: ProcessingGuarantee
  t0: number
  partitions: KilledPartition[]
  detectedAt: number | null
  assignedAt: Map<number, number>
  fencedAt: Map<number, number>
  /** exactly_once_v2: when the dead worker's open transaction was aborted (null: none was open). */
  openTxnAbortedAt: number | null
  hadOpenTxn: boolean
  restoredAt: Map<number, number>
  caughtUpAt: Map<number, number>
  t1: number | null
}

export function redone(r: Recovery): number {
  return r.partitions.reduce((n, p) => n + Math.max(0, p.positionAtKill - (p.committedAtKill ?? 0)), 0)
}

const maxOf = (m: Map<number, number>, parts: KilledPartition[]): number | null => {
  let v = Number.NEGATIVE_INFINITY
  for (const p of parts) {
    const t = m.get(p.partition)
    if (t === undefined) return null
    if (t > v) v = t
  }
  return parts.length === 0 ? null : v
}

/**
 * Phase end instants, each clamped to be no earlier than the one before and no later than t1, so
 * the phases add up to t1 - t0. (On Kafka a phase's instant comes from a worker process's report,
 * t1 from the group's committed offsets: a restore reported a few ms after the offsets were seen
 * committed ends at t1, and its catch-up takes 0.)
 */
export function phaseEnds(r: Recovery): RecoveryPhases {
  const detection = r.detectedAt
  const rebalance = detection === null ? null : maxOf(r.assignedAt, r.partitions)
  let fence: number | null = null
  if (rebalance !== null) {
    if (!isExactlyOnce(r.guarantee)) fence = rebalance
    else {
      const f = maxOf(r.fencedAt, r.partitions)
      const waitTxn = r.hadOpenTxn && r.guarantee === 'exactly_once_v2' ? r.openTxnAbortedAt : rebalance
      fence = f === null || waitTxn === null ? null : Math.max(f, waitTxn)
    }
  }
  const restore = fence === null ? null : maxOf(r.restoredAt, r.partitions)
  const catchUp = restore === null ? null : r.t1
  const ends: (number | null)[] = [detection, rebalance, fence, restore, catchUp]
  let prev = r.t0
  const last = r.t1 ?? Number.POSITIVE_INFINITY
  const clamped = ends.map((e) => {
    if (e === null) return null
    prev = Math.min(Math.max(prev, e), Math.max(last, r.t0))
    return prev
  })
  return {
    detection: clamped[0]!,
    rebalance: clamped[1]!,
    fence: clamped[2]!,
    restore: clamped[3]!,
    catchUp: clamped[4]!,
  }
}

export function phaseDurations(r: Recovery): RecoveryPhases {
  const ends = phaseEnds(r)
  const order: (keyof RecoveryPhases)[] = ['detection', 'rebalance', 'fence', 'restore', 'catchUp']
  const out: RecoveryPhases = { detection: null, rebalance: null, fence: null, restore: null, catchUp: null }
  let prev: number | null = r.t0
  for (const k of order) {
    const e = ends[k]
    out[k] = e === null || prev === null ? null : e - prev
    prev = e
  }
  return out
}

export class RecoveryTracker {
  readonly recoveries: Recovery[] = []
  private seq = 0

  onKill(input: {
    workerId: string
    memberId: string | null
    transactionalIds: string[]
    guarantee: ProcessingGuarantee
    t0: number
    partitions: KilledPartition[]
    hadOpenTxn: boolean
  }): Recovery | null {
    if (input.partitions.length === 0) return null
    const r: Recovery = {
      id: `r${++this.seq}`,
      ...input,
      detectedAt: null,
      assignedAt: new Map(),
      fencedAt: new Map(),
      openTxnAbortedAt: null,
      restoredAt: new Map(),
      caughtUpAt: new Map(),
      t1: null,
    }
    // A partition already caught up at t0 (nothing consumed beyond the commit) still goes through the phases.
    this.recoveries.push(r)
    return r
  }

  private open(): Recovery[] {
    return this.recoveries.filter((r) => r.t1 === null)
  }

  /** The group noticed the member is gone (session expired or left). */
  onMemberGone(memberId: string, atMs: number): void {
    for (const r of this.open()) if (r.memberId === memberId && r.detectedAt === null) r.detectedAt = atMs
  }
  onAssigned(partitions: number[], atMs: number): void {
    for (const r of this.open()) {
      if (r.detectedAt === null) continue
      for (const p of partitions) if (r.partitions.some((k) => k.partition === p)) r.assignedAt.set(p, atMs)
    }
  }
  onFenced(partition: number, atMs: number): void {
    for (const r of this.open()) if (r.assignedAt.has(partition)) r.fencedAt.set(partition, atMs)
  }
  onTxnAborted(transactionalId: string, atMs: number): void {
    for (const r of this.open())
      if (r.openTxnAbortedAt === null && r.transactionalIds.includes(transactionalId)) r.openTxnAbortedAt = atMs
  }
  onRestored(partition: number, atMs: number): void {
    for (const r of this.open()) {
      if (!r.fencedAt.has(partition)) continue
      r.restoredAt.set(partition, atMs)
      const k = r.partitions.find((p) => p.partition === partition)!
      // Nothing was consumed beyond the commit: caught up as soon as it is restored.
      if ((k.committedAtKill ?? 0) >= k.positionAtKill) this.onCommitted(partition, k.committedAtKill ?? 0, atMs)
    }
  }
  /** The group's committed offset of a partition advanced to `offset` at atMs. */
  onCommitted(partition: number, offset: number, atMs: number): void {
    for (const r of this.open()) {
      const k = r.partitions.find((p) => p.partition === partition)
      if (!k || !r.restoredAt.has(partition)) continue
      if (offset >= k.positionAtKill && !r.caughtUpAt.has(partition)) r.caughtUpAt.set(partition, atMs)
      if (r.partitions.every((p) => r.caughtUpAt.has(p.partition))) r.t1 = Math.max(...r.caughtUpAt.values())
    }
  }
}
