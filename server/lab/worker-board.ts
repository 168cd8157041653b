// The dashboard's worker cards and task rows, folded from the runtime's events whatever the
// backend: each worker's latest status (tasks, step counters, producers, pid and host), who the
// group last assigned each partition to, and which workers were killed. The runtime's slots add
// what only the supervisor knows (its own processes' state, when each started).

import type { ProducerTimeline, StoppedTaskView, TaskStopView, TaskView, WorkerView } from '../../lib/lab-protocol.ts'
import type { StepCounters } from '../../lib/five-steps.ts'
import type { ProcessingGuarantee } from '../../lib/streams-config.ts'
import { taskIdOf } from '../../lib/task-id.ts'
import type { LabEvent, LabRuntime, RuntimeSlot, TaskStatus, WorkerStatus } from '../runtime/lab-runtime.ts'

/** A worker started elsewhere that has not published for this long is shown as stopped. */
const REMOTE_SILENT_MS = 5_000
const REMOTE_FORGOTTEN_MS = 60_000
const NO_STEPS = { consumed: 0, processed: 0, produced: 0, acked: 0, committed: 0 }

interface Reported {
  id: string
  origin: 'own' | 'remote'
  pid: number | null
  host: string | null
  status: WorkerStatus
  /** The record that stopped it (kept when a later status, such as its process's exit, no longer carries it). */
  stop: TaskStopView | null
  /** The partitions it last reported holding. */
  held: number[]
  firstSeenMs: number
  lastSeenMs: number
}

/** A worker whose tasks may be shown: its status and how fresh it is. */
interface Claimant {
  id: string
  memberId: string | null
  tasks: TaskStatus[]
  lastSeenMs: number
}

function slotState(s: RuntimeSlot): WorkerView['state'] {
  const p = s.process.state
  if (p === 'killed') return 'killed'
  if (p === 'paused') return 'paused'
  if (p === 'exited' || s.worker?.state === 'stopped' || s.worker?.state === 'failed') return 'stopped'
  return 'running'
}

/** Past owners of a task remembered one by one; older ones are folded into one sum. */
const KEPT_OWNERS = 8
const STEP_KEYS: readonly (keyof StepCounters)[] = ['consumed', 'processed', 'produced', 'acked', 'committed']

function addSteps(a: StepCounters, b: StepCounters): StepCounters {
  return {
    consumed: a.consumed + b.consumed,
    processed: a.processed + b.processed,
    produced: a.produced + b.produced,
    acked: a.acked + b.acked,
    committed: a.committed + b.committed,
  }
}

/**
 * Step counters per task id that survive the task moving. A worker counts the steps of the tasks it
 * runs from 0, so after a kill or a rebalance the new owner's counters restarted while the group's
 * committed offset kept counting. Here each owner's latest counters are kept (a worker whose
 * counters for the task go down started the task over: what it had counted is kept apart) and a
 * task shows their sum. Owners that alternate during a rebalance are counted once each.
 */
export class TaskStepTotals {
  private readonly byTask = new Map<number, { folded: StepCounters; owners: Map<string, StepCounters> }>()

  /** Notes a worker's counters for a task; returns the task's counters over all its owners. */
  note(partition: number, workerId: string, steps: StepCounters): StepCounters {
    let t = this.byTask.get(partition)
    if (!t) {
      t = { folded: { ...NO_STEPS }, owners: new Map() }
      this.byTask.set(partition, t)
    }
    const mine = t.owners.get(workerId)
    if (mine && STEP_KEYS.some((k) => steps[k] < mine[k])) t.folded = addSteps(t.folded, mine)
    t.owners.delete(workerId)
    t.owners.set(workerId, { ...steps })
    while (t.owners.size > KEPT_OWNERS) {
      const [oldest, counted] = t.owners.entries().next().value as [string, StepCounters]
      t.owners.delete(oldest)
      t.folded = addSteps(t.folded, counted)
    }
    return this.total(partition)
  }

  total(partition: number): StepCounters {
    const t = this.byTask.get(partition)
    if (!t) return { ...NO_STEPS }
    let sum = t.folded
    for (const c of t.owners.values()) sum = addSteps(sum, c)
    return sum
  }
}

/** Generation fencings kept per transactional.id. */
const MAX_GENERATION_FENCINGS = 20

interface GenerationFenced {
  producerId: number
  epoch: number
  fencings: ProducerTimeline['fencings']
}

export class WorkerBoard {
  private readonly steps = new TaskStepTotals()
  /**
   * Under exactly_once_v2 a zombie is fenced by its group generation, not by an epoch: its thread
   * producer keeps its epoch, but the TxnOffsetCommit of a member the group has moved on from is
   * refused and the worker reports its tasks migrated. Kept by the worker's transactional.id.
   */
  private readonly generationFenced = new Map<string, GenerationFenced>()
  private readonly reported = new Map<string, Reported>()
  private readonly owner = new Map<number, string>()
  private readonly killed = new Set<string>()
  /** Who stops workers cleanly on this lab (a scenario ending its lab): their cards say so instead of "killed". */
  cleanStops: 'scenario' | null = null

  onEvent(e: LabEvent): void {
    if ('source' in e) return
    if (e.type === 'worker-status') {
      const known = this.reported.get(e.workerId)
      const stop = e.status.stop ?? (e.status.state === 'running' ? null : (known?.stop ?? null))
      const held = e.status.tasks.length > 0 ? e.status.tasks.map((t) => t.partition) : (known?.held ?? [])
      this.reported.set(e.workerId, {
        id: e.workerId,
        origin: e.origin,
        pid: e.pid ?? known?.pid ?? null,
        host: e.host ?? known?.host ?? null,
        status: e.status,
        stop: stop ? { ...stop } : null,
        held,
        firstSeenMs: known?.firstSeenMs ?? e.atMs,
        lastSeenMs: e.atMs,
      })
    } else if (e.type === 'partitions-assigned' && e.memberId !== null) {
      for (const p of e.partitions) this.owner.set(p, e.memberId)
    } else if (e.type === 'worker-killed') {
      this.killed.add(e.workerId)
    } else if (e.type === 'task-migrated' && !e.reason.startsWith('task corrupted')) {
      this.noteGenerationFencing(e.workerId, e.reason, e.atMs)
    }
  }

  private noteGenerationFencing(workerId: string, reason: string, atMs: number): void {
    for (const p of this.reported.get(workerId)?.status.producers ?? []) {
      if (p.transactionalId === null) continue
      let g = this.generationFenced.get(p.transactionalId)
      if (!g) {
        g = { producerId: p.producerId, epoch: p.epoch, fencings: [] }
        this.generationFenced.set(p.transactionalId, g)
      }
      g.fencings.push({ atMs, reason: `${workerId} fenced by the group generation: ${reason}`, by: 'generation' })
      if (g.fencings.length > MAX_GENERATION_FENCINGS) g.fencings.shift()
    }
  }

  /**
   * The producers' timelines with the fencings by group generation added (exactly_once_v2 only:
   * under exactly_once a migrated task's producer is fenced by its epoch, already in the timelines).
   */
  withGenerationFencings(timelines: readonly ProducerTimeline[], guarantee: ProcessingGuarantee): ProducerTimeline[] {
    if (guarantee !== 'exactly_once_v2' || this.generationFenced.size === 0) return [...timelines]
    const out = timelines.map((tl) => {
      const g = this.generationFenced.get(tl.transactionalId)
      return g ? { ...tl, fencings: [...tl.fencings, ...g.fencings].sort((a, b) => a.atMs - b.atMs) } : tl
    })
    for (const [transactionalId, g] of this.generationFenced) {
      if (out.some((tl) => tl.transactionalId === transactionalId)) continue
      out.push({
        transactionalId,
        producerId: g.producerId,
        epochs: [{ epoch: g.epoch, atMs: g.fencings[0]?.atMs ?? 0 }],
        fencings: [...g.fencings],
        lastSequence: [],
      })
    }
    return out
  }

  /** The partitions a worker last reported holding. */
  held(workerId: string): readonly number[] {
    return this.reported.get(workerId)?.held ?? []
  }

  wasKilled(workerId: string): boolean {
    return this.killed.has(workerId)
  }

  private remoteState(w: Reported, now: number): WorkerView['state'] {
    if (this.killed.has(w.id) || w.status.state === 'dead') return 'killed'
    return now - w.lastSeenMs > REMOTE_SILENT_MS || w.status.state === 'stopped' || w.status.state === 'failed'
      ? 'stopped'
      : 'running'
  }

  /** The runtime's own slots, then workers started elsewhere (a remote worker silent for a minute is dropped). */
  workerViews(rt: LabRuntime, now: number): WorkerView[] {
    const own = rt.slots.map((s): WorkerView => {
      const id = s.worker?.id ?? s.slotId
      const r = this.reported.get(id)
      const slot = slotState(s)
      // Ended with its lab (closed, or stopped cleanly without a poison record), not killed by a fault.
      const byLab =
        this.cleanStops !== null &&
        ((slot === 'killed' && !this.killed.has(id)) || (slot === 'stopped' && !r?.stop && !r?.status.error))
      const state = byLab ? 'stopped' : slot
      const alive = state === 'running' || state === 'paused'
      return {
        id,
        memberId: s.worker?.memberId ?? r?.status.memberId ?? null,
        state,
        taskIds: alive && r ? r.status.tasks.map((t) => taskIdOf(t.partition)) : [],
        producers: alive && r ? r.status.producers.map((p) => ({ ...p })) : [],
        startedAtMs: s.startedAtMs,
        error: r?.status.error ?? null,
        stop: alive ? null : (r?.stop ?? null),
        ...(byLab && this.cleanStops !== null ? { stoppedBy: this.cleanStops } : {}),
        ...(r?.pid != null || r?.host != null ? { pid: r.pid, host: r.host } : {}),
      }
    })
    const current = new Set(own.map((w) => w.id))
    for (const w of this.reported.values()) {
      if (
        (w.origin === 'own' && !current.has(w.id)) ||
        (w.origin === 'remote' && now - w.lastSeenMs > REMOTE_FORGOTTEN_MS)
      )
        this.reported.delete(w.id)
    }
    const remote = [...this.reported.values()]
      .filter((w) => w.origin === 'remote')
      .map((w): WorkerView => {
        const state = this.remoteState(w, now)
        const running = state === 'running'
        return {
          id: w.id,
          memberId: w.status.memberId,
          state,
          taskIds: running ? w.status.tasks.map((t) => taskIdOf(t.partition)) : [],
          producers: running ? w.status.producers.map((p) => ({ ...p })) : [],
          startedAtMs: w.firstSeenMs,
          error: null,
          stop: running ? null : w.stop,
          pid: w.pid,
          host: w.host,
          remote: true,
        }
      })
    return [...own, ...remote]
  }

  private claimants(rt: LabRuntime, now: number): Claimant[] {
    const out: Claimant[] = []
    for (const s of rt.slots) {
      const r =
        s.worker && (s.process.state === 'running' || s.process.state === 'paused')
          ? this.reported.get(s.worker.id)
          : undefined
      if (r)
        out.push({
          id: r.id,
          memberId: s.worker!.memberId ?? r.status.memberId,
          tasks: r.status.tasks,
          lastSeenMs: r.lastSeenMs,
        })
    }
    for (const w of this.reported.values()) {
      if (w.origin === 'remote' && this.remoteState(w, now) === 'running')
        out.push({ id: w.id, memberId: w.status.memberId, tasks: w.status.tasks, lastSeenMs: w.lastSeenMs })
    }
    return out
  }

  /**
   * One row per partition. During a rebalance the old owner's last status and the new owner's
   * first one can both claim a partition: the group's assignment decides, then the freshest status.
   */
  taskViews(rt: LabRuntime, committed: (number | null)[], ends: number[], now: number): TaskView[] {
    const claimants = this.claimants(rt, now)
    const claims = new Map<number, Claimant>()
    for (const w of claimants) {
      for (const t of w.tasks) {
        const other = claims.get(t.partition)
        const owner = this.owner.get(t.partition)
        if (!other || (other.memberId !== owner && (w.memberId === owner || w.lastSeenMs > other.lastSeenMs)))
          claims.set(t.partition, w)
      }
    }
    for (const w of claimants) for (const t of w.tasks) this.steps.note(t.partition, w.id, t.steps ?? NO_STEPS)
    const tasks: TaskView[] = []
    for (const w of claimants) {
      for (const t of w.tasks) {
        if (claims.get(t.partition) !== w) continue
        const steps = this.steps.total(t.partition)
        const c = committed[t.partition] ?? t.committedOffset
        const state = t.state === 'running' ? 'running' : t.state === 'restoring' ? 'restoring' : 'suspended'
        tasks.push({
          taskId: taskIdOf(t.partition),
          partition: t.partition,
          workerId: w.id,
          state,
          // Step 5 is the group's committed offset, the figure beside it and the committed input's: the
          // workers' own count of what they committed lags it by a status report and misses a dead
          // owner's last commit (docs/measures.md#step-numbers).
          steps: { ...steps, committed: c ?? 0 },
          position: t.consumedOffset,
          committedOffset: c ?? null,
          lag: Math.max(0, (ends[t.partition] ?? 0) - (c ?? 0)),
        })
      }
    }
    return tasks.sort((a, b) => a.partition - b.partition)
  }
}

/**
 * Tasks that no worker runs because a worker stopped on a poison record: each partition the stopped
 * workers held, with the record that stopped it where it met one, and its true lag (the input's end
 * minus the group's committed offset: it grows while the task is stopped, it never reads 0).
 */
export function stoppedTaskViews(
  workers: readonly WorkerView[],
  running: readonly TaskView[],
  held: (workerId: string) => readonly number[],
  committed: (number | null)[],
  ends: number[],
): StoppedTaskView[] {
  const runningParts = new Set(running.map((t) => t.partition))
  const out = new Map<number, StoppedTaskView>()
  for (const w of workers) {
    if (!w.stop || w.state === 'running' || w.state === 'paused') continue
    const parts = new Set([w.stop.partition, ...held(w.id)])
    for (const p of parts) {
      if (runningParts.has(p)) continue
      const stop = w.stop.partition === p ? w.stop : null
      if (out.has(p) && (out.get(p)!.stop !== null || stop === null)) continue
      const c = committed[p] ?? null
      out.set(p, {
        taskId: taskIdOf(p),
        partition: p,
        workerId: w.id,
        stop,
        committedOffset: c,
        lag: Math.max(0, (ends[p] ?? 0) - (c ?? 0)),
      })
    }
  }
  return [...out.values()].sort((a, b) => a.partition - b.partition)
}

/**
 * The worker cards' producer epochs as the producer's current epoch (docs/measures.md, "Current epoch
 * and a transaction's epoch"): the latest epoch known for its producer id from any source, the
 * worker's status (sent every 100 ms), its latest transaction's begin or initTransactions, or its
 * coordinator. On the embedded log the epoch goes up at every EndTxn (KIP-890), ten times a second
 * at commit.interval.ms 100, so each source alone lags the others by a report and the card read
 * below the lane and the coordinator. Only the owner of a transactional.id gets a newer epoch: a
 * zombie's producer keeps the epoch it was fenced at.
 */
export function withCurrentEpochs(
  workers: readonly WorkerView[],
  known: readonly { transactionalId: string; producerId: number; epoch: number }[],
  ownerOf: (transactionalId: string) => string | undefined,
): WorkerView[] {
  const key = (transactionalId: string, producerId: number) => `${transactionalId}\u0000${producerId}`
  const latest = new Map<string, number>()
  for (const k of known) {
    const at = key(k.transactionalId, k.producerId)
    latest.set(at, Math.max(k.epoch, latest.get(at) ?? k.epoch))
  }
  const newer = (w: WorkerView, p: WorkerView['producers'][number]) => {
    if (p.transactionalId === null || ownerOf(p.transactionalId) !== w.id) return null
    const epoch = latest.get(key(p.transactionalId, p.producerId))
    return epoch !== undefined && epoch > p.epoch ? epoch : null
  }
  return workers.map((w) => {
    if (!w.producers.some((p) => newer(w, p) !== null)) return w
    return { ...w, producers: w.producers.map((p) => ({ ...p, epoch: newer(w, p) ?? p.epoch })) }
  })
}

/** Idempotent producers (at_least_once) have no transactional.id: shown by their worker. */
export function idempotentProducers(workers: readonly WorkerView[]): ProducerTimeline[] {
  const out: ProducerTimeline[] = []
  for (const w of workers) {
    if (w.state !== 'running' && w.state !== 'paused') continue
    for (const p of w.producers)
      if (p.transactionalId === null)
        out.push({
          transactionalId: `idempotent producer of ${w.id}`,
          producerId: p.producerId,
          epochs: [{ epoch: p.epoch, atMs: w.startedAtMs }],
          fencings: [],
          lastSequence: [],
        })
  }
  return out
}
