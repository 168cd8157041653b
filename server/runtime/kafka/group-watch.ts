// What the worker-process runtime learns of its group and input by asking the cluster (a Kafka
// client sees none of the broker's own events): the members and their assignment
// (admin.describeGroups every GROUP_POLL_MS: a dead member's disappearance is the detection
// instant, a Stable assignment of its partitions the rebalance), the group's committed offsets,
// and the input's end offsets once a second, whose failure means the cluster is unreachable.

import { AssignerProtocol, type Admin } from 'kafkajs'
import type { Logger } from '../../logging.ts'
import type { Time } from '../../log/time.ts'
import type { LabEvent } from '../lab-runtime.ts'
import type { RecoveryTracker } from '../recovery-tracker.ts'
import { type TaskPosition, waitingRecords } from '../waiting-records.ts'
import { retrying } from './kafka-worker.ts'
import { logErrorCode, noBrokerAnswered } from '../../log/kafka/kafka-errors.ts'
import { conditionOf, CountedWarnings, warningOf } from '../../log/counted-warnings.ts'

export const GROUP_POLL_MS = 100
const HEALTH_POLL_MS = 1_000

export interface GroupWatchTarget {
  admin: Admin
  groupId: string
  inputTopic: string
  partitions: number
  tracker: RecoveryTracker
  time: Time
  log: Logger
  emit(e: LabEvent): void
  /** Whether the load generator has written all it will. */
  loadFinished(): boolean
}

export class GroupWatch {
  /** The group's committed offsets, as last fetched or reported by a worker. */
  readonly committed: (number | null)[]
  /** The input's end offsets as last fetched. */
  inputEnds: number[]
  /**
   * The committed offsets as they stood when the last end offsets were asked for: commits reported
   * while that request was under way may be past the ends it returns.
   */
  private committedAtEnds: (number | null)[]
  /** The end offsets once the load has finished (what caught up means). */
  finalEnds: number[] | null = null
  private readonly owner = new Map<number, string>()
  private readonly deadMembers = new Set<string>()
  private reachable = true
  /** describeGroups fails every poll while the group's coordinator is away: one line per 10 s with the count. */
  private readonly warnings: CountedWarnings

  constructor(private readonly t: GroupWatchTarget) {
    this.warnings = new CountedWarnings((line) => t.log.warn(line))
    this.committed = Array.from({ length: t.partitions }, () => null)
    this.inputEnds = Array.from({ length: t.partitions }, () => 0)
    this.committedAtEnds = [...this.committed]
  }

  /** The committed offsets and the end offsets read after them: every committed offset ≤ its end. */
  offsetsAtOneMoment(): { committed: (number | null)[]; ends: number[] } {
    return { committed: [...this.committedAtEnds], ends: [...this.inputEnds] }
  }

  committedTotal(): number {
    return this.committed.reduce<number>((a, b) => a + (b ?? 0), 0)
  }

  /** All input produced, and committed by the group (as of the last poll): kills go on until then. */
  caughtUp(): boolean {
    const ends = this.finalEnds
    if (!this.t.loadFinished() || ends === null) return false
    return ends.every((e, p) => (this.committed[p] ?? 0) >= e)
  }

  /**
   * Input records written and not yet consumed: `written` less each partition's furthest
   * position (a task's, or the group's commit).
   */
  backlog(written: number, tasks: Iterable<TaskPosition>): number {
    return waitingRecords(written, this.committed, tasks)
  }

  memberDied(memberId: string): void {
    this.deadMembers.add(memberId)
  }

  /** A commit a worker reported (offsets only grow). */
  noteCommitted(partition: number, offset: number): void {
    const c = this.committed[partition]
    if (partition < this.committed.length && (c === null || c === undefined || offset > c))
      this.committed[partition] = offset
  }

  async groupLoop(stopped: () => boolean): Promise<void> {
    while (!stopped()) {
      try {
        await this.pollGroup()
      } catch (e) {
        if (!stopped())
          this.warnings.warn(conditionOf('group not described', e, logErrorCode), warningOf('group not described', e))
      }
      await this.t.time.sleep(GROUP_POLL_MS)
    }
    this.warnings.flush()
  }

  async healthLoop(stopped: () => boolean): Promise<void> {
    // The first probe waits a round: a just-created topic answers "not the leader" for a moment.
    while (!stopped()) {
      await this.t.time.sleep(HEALTH_POLL_MS)
      if (!stopped()) await this.checkHealth(stopped)
    }
  }

  /** One cheap request a second: the input's end offsets. Failing means the cluster is unreachable. */
  private async checkHealth(stopped: () => boolean): Promise<void> {
    try {
      const committed = [...this.committed]
      this.inputEnds = await this.fetchInputEnds()
      this.committedAtEnds = committed
      this.markReachable()
    } catch (e) {
      if (stopped()) return // the connection was closed under it: not an outage
      // A broker that answers with an error (NOT_LEADER while a restarted broker elects its
      // partitions' leaders) is reachable: only a cluster that does not answer is an outage.
      if (!noBrokerAnswered(e)) return this.markReachable()
      this.reachable = false
      this.t.emit({
        type: 'cluster-unreachable',
        error: e instanceof Error ? e.message : String(e),
        atMs: this.t.time.now(),
      })
    }
  }

  private markReachable(): void {
    if (this.reachable) return
    this.reachable = true
    this.t.emit({ type: 'cluster-reachable', atMs: this.t.time.now() })
  }

  /** The input topic's high watermarks, asked of the cluster (throws while it is unreachable). */
  async fetchInputEnds(): Promise<number[]> {
    const ends = await this.t.admin.fetchTopicOffsets(this.t.inputTopic)
    const out = Array.from({ length: this.t.partitions }, () => 0)
    for (const e of ends) if (e.partition < out.length) out[e.partition] = Number(e.high)
    return out
  }

  private async pollGroup(): Promise<void> {
    const { tracker, time } = this.t
    const now = time.now()
    const { groups } = await this.t.admin.describeGroups([this.t.groupId])
    const g = groups[0]
    if (g) {
      const members = new Set(g.members.map((m) => m.memberId))
      const gone = new Set<string>()
      for (const r of tracker.recoveries)
        if (r.t1 === null && r.detectedAt === null && r.memberId && !members.has(r.memberId)) gone.add(r.memberId)
      for (const memberId of gone) this.t.emit({ type: 'member-gone', memberId, atMs: now })
      if (g.state === 'Stable') {
        for (const m of g.members) {
          if (this.deadMembers.has(m.memberId) || m.memberAssignment.length === 0) continue
          const decoded = AssignerProtocol.MemberAssignment.decode(m.memberAssignment)
          const changed = (decoded?.assignment[this.t.inputTopic] ?? []).filter((p) => this.owner.get(p) !== m.memberId)
          for (const p of changed) this.owner.set(p, m.memberId)
          if (changed.length > 0)
            this.t.emit({ type: 'partitions-assigned', memberId: m.memberId, partitions: changed, atMs: now })
        }
      }
    }
    await this.refreshCommitted()
  }

  private async refreshCommitted(): Promise<void> {
    const fetched = await this.t.admin.fetchOffsets({ groupId: this.t.groupId, topics: [this.t.inputTopic] })
    const now = this.t.time.now()
    for (const p of fetched[0]?.partitions ?? []) {
      const o = Number(p.offset)
      if (o < 0 || p.partition >= this.committed.length) continue
      if (this.committed[p.partition] === null || o > this.committed[p.partition]!) {
        this.committed[p.partition] = o
        this.t.tracker.onCommitted(p.partition, o, now)
      }
    }
    if (this.t.loadFinished() && this.finalEnds === null)
      this.finalEnds = await retrying(() => this.fetchInputEnds(), 10_000)
  }

  /** The new owner has the partition: the rebalance is over for it, whatever describeGroups said so far. */
  onTaskCreated(workerId: string, p: number, memberId: string | null, atMs: number): void {
    for (const r of this.t.tracker.recoveries) {
      if (r.t1 !== null || !r.partitions.some((k) => k.partition === p) || r.workerId === workerId) continue
      if (r.detectedAt === null && r.memberId) this.t.emit({ type: 'member-gone', memberId: r.memberId, atMs })
      if (!r.assignedAt.has(p)) {
        if (memberId) this.owner.set(p, memberId)
        this.t.emit({ type: 'partitions-assigned', memberId, partitions: [p], atMs })
      }
    }
  }
}
