// The Group view's reads: the lab's consumer group as its coordinator holds it (the log
// inspector's describeGroup), folded into the generation history each time it is seen Stable, and
// the committed vs end offset of every input partition sampled into bounded lag series. One book
// per runtime: a reset starts a new group, and a new history.

import { foldGeneration, foldLag, type GenerationHistory } from '../../lib/group-history.ts'
import type { GenerationMember, GoneHow, GroupView, PartitionLagSeries } from '../../lib/group-view.ts'
import type { WorkerView } from '../../lib/lab-protocol.ts'
import type { GroupDescription } from '../log/group-description.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'

/** A lag point a second, whatever the snapshot rate. */
export const LAG_SAMPLE_MS = 1_000

export interface GroupLook {
  now: number
  workers: readonly WorkerView[]
  committed: readonly (number | null)[]
  ends: readonly number[]
}

export class GroupBook {
  private history: GenerationHistory = { generations: [], earlier: 0 }
  private lag: PartitionLagSeries[] = []
  private described: GroupDescription | null = null
  private readAtMs = 0
  private error: string | undefined
  private reading = false
  private lastReadMs = -Infinity
  private lastLagMs = -Infinity
  /** The generation each member's worker last reported (its consumer's ConsumerGroupMetadata). */
  private readonly reported = new Map<string, number>()
  /**
   * The worker each member id was reported by, kept after the worker dies (a killed worker's view forgets its member).
   */
  private readonly workerOfMember = new Map<string, string>()
  /** Each worker's last known state, kept after its slot is refilled (a worker process's view is replaced). */
  private readonly workerState = new Map<string, WorkerView['state']>()
  /** The generation last taken into the history: the header shows the same number as the history's current row. */
  private agreed: number | null = null

  constructor(private readonly rt: LabRuntime) {
    rt.onEvent((e) => {
      if ('source' in e) return
      if (e.type === 'worker-killed') this.workerState.set(e.workerId, 'killed')
      if (e.type !== 'worker-status') return
      const { memberId, generationId } = e.status
      if (memberId) this.workerOfMember.set(memberId, e.workerId)
      if (memberId && generationId !== undefined && generationId >= 0) this.reported.set(memberId, generationId)
    })
  }

  /** The view as last read; starts a read when the runtime's log-view pace is due, and samples the lag. */
  look(l: GroupLook): GroupView | undefined {
    for (const w of l.workers) {
      if (w.memberId) this.workerOfMember.set(w.memberId, w.id)
      if (this.workerState.get(w.id) !== 'killed') this.workerState.set(w.id, w.state)
    }
    if (
      !this.reading &&
      l.now - this.lastReadMs >= this.rt.pollMs.logView &&
      this.rt.connection.inspector().describeGroup
    ) {
      this.lastReadMs = l.now
      this.reading = true
      void this.read().finally(() => (this.reading = false))
    }
    if (l.now - this.lastLagMs >= LAG_SAMPLE_MS) {
      this.lastLagMs = l.now
      this.lag = foldLag(this.lag, l.now, l.committed, l.ends)
    }
    return this.view()
  }

  private async read(): Promise<void> {
    try {
      const d = await this.rt.connection.inspector().describeGroup!(this.rt.groupId)
      this.described = d
      this.readAtMs = this.rt.time.now()
      this.error = undefined
      if (d.state !== 'Stable') return
      const members = this.members(d)
      const generationId = this.generationOf(d, members)
      if (generationId === undefined) return // the members' reports do not agree yet
      this.agreed = generationId
      this.history = foldGeneration(
        this.withKnownWorkers(this.history),
        { atMs: this.readAtMs, generationId, members },
        (m) => this.goneHow(m),
      )
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e)
    }
  }

  private members(d: GroupDescription): GenerationMember[] {
    const input = this.rt.topics.input
    return d.members.map((m) => ({
      memberId: m.memberId,
      workerId: this.workerOf(m.memberId),
      partitions: m.assignment.filter((tp) => tp.topic === input).map((tp) => tp.partition),
    }))
  }

  private workerOf(memberId: string): string | null {
    return this.workerOfMember.get(memberId) ?? null
  }

  /**
   * The coordinator's generation where it gives one (embedded). Otherwise (Kafka's DescribeGroups
   * has none) the one every member's worker reports; undefined until they all agree (a report
   * lags the rebalance it follows: right after a kill the coordinator already lists the survivors
   * while they still report the generation that had the dead member, and taking that number would
   * rewrite the old generation's members); null when no member is an eoscope worker (nothing will
   * report it).
   */
  private generationOf(d: GroupDescription, members: readonly GenerationMember[]): number | null | undefined {
    if (d.generationId !== null) return d.generationId
    const ours = members.filter((m) => m.workerId !== null)
    if (ours.length === 0) return null
    const gens = new Set(ours.map((m) => this.reported.get(m.memberId)))
    const [only] = gens
    return gens.size === 1 ? only : undefined
  }

  /**
   * The current generation with the workers learnt since it was seen (a member's worker
   * may report after the coordinator names it).
   */
  private withKnownWorkers(h: GenerationHistory): GenerationHistory {
    const last = h.generations[h.generations.length - 1]
    if (!last || last.members.every((m) => m.workerId !== null || !this.workerOfMember.has(m.memberId))) return h
    const members = last.members.map((m) => ({
      ...m,
      workerId: m.workerId ?? this.workerOfMember.get(m.memberId) ?? null,
    }))
    return { ...h, generations: [...h.generations.slice(0, -1), { ...last, members }] }
  }

  private goneHow(m: GenerationMember): GoneHow {
    const state = m.workerId === null ? undefined : this.workerState.get(m.workerId)
    return state === 'killed' ? 'killed' : state === 'stopped' ? 'left' : 'gone'
  }

  private view(): GroupView | undefined {
    const d = this.described
    if (d === null) return undefined
    const members = d.members.map((m) => ({
      memberId: m.memberId,
      clientId: m.clientId,
      host: m.host,
      workerId: this.workerOf(m.memberId),
      partitions: m.assignment.filter((tp) => tp.topic === this.rt.topics.input).map((tp) => tp.partition),
    }))
    return {
      groupId: d.groupId,
      topic: this.rt.topics.input,
      state: d.state,
      generationId: d.generationId ?? this.agreed,
      generationSource: d.generationId !== null ? 'coordinator' : 'members',
      protocolType: d.protocolType,
      protocol: d.protocol,
      members,
      generations: this.history.generations,
      earlierGenerations: this.history.earlier,
      lag: this.lag,
      readAtMs: this.readAtMs,
      ...(this.error !== undefined ? { error: this.error } : {}),
    }
  }
}

const books = new WeakMap<LabRuntime, GroupBook>()

/** The snapshot's group part for this runtime (its book made on first use). */
export function groupPart(rt: LabRuntime, look: GroupLook): { group?: GroupView } {
  let book = books.get(rt)
  if (!book) {
    book = new GroupBook(rt)
    books.set(rt, book)
  }
  const group = book.look(look)
  return group ? { group } : {}
}
