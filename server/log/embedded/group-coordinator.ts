// The group coordinator of one consumer group: members, heartbeats, session.timeout.ms,
// generations, a sticky assignment of partitions to live members, and committed offsets kept in
// the internal offsets log. Rebalancing is incremental (cooperative): a partition moves only
// after its previous owner released it (clean revoke) or was removed from the group.

import { LogError } from '../errors.ts'
import type { GroupDescription, GroupState } from '../group-description.ts'
import type { ControlType, OffsetToCommit, TopicPartition } from '../types.ts'
import { tpKey } from '../types.ts'
import { comparePartitionKeys, computeAssignment } from '../sticky-assignment.ts'

export { computeAssignment }

export interface Member {
  readonly memberId: string
  readonly clientId: string
  readonly sessionTimeoutMs: number
  lastHeartbeatMs: number
  /** The generation this member last saw (at join or heartbeat). */
  generationSeen: number
  readonly joinedGeneration: number
}

export interface HeartbeatResult {
  generationId: number
  /** Owned partitions that the target assignment gives to another member: commit, then release them. */
  revoke: TopicPartition[]
  /** Partitions that are now this member's. */
  assign: TopicPartition[]
}

export type GroupEvent =
  | { type: 'member-joined'; memberId: string; generationId: number; atMs: number }
  | { type: 'member-left'; memberId: string; generationId: number; atMs: number }
  | { type: 'member-expired'; memberId: string; generationId: number; atMs: number; lastHeartbeatMs: number }
  | { type: 'partitions-assigned'; memberId: string; partitions: TopicPartition[]; generationId: number; atMs: number }
  | { type: 'partitions-released'; memberId: string; partitions: TopicPartition[]; atMs: number }

export interface OffsetsLogWriter {
  /** Appends offset commits to the internal offsets log; transactional when producerId is given. */
  appendOffsets(
    groupId: string,
    offsets: readonly OffsetToCommit[],
    txn: { producerId: number; epoch: number } | null,
  ): void
  offsetsPartition(groupId: string): TopicPartition
}

export class GroupCoordinator {
  private readonly members = new Map<string, Member>()
  private generation = 0
  private nextMemberSeq = 1
  private readonly partitions = new Map<string, TopicPartition>()
  /** Current owner of each partition (null while moving). */
  private readonly owner = new Map<string, string>()
  private target = new Map<string, string>()
  private readonly committed = new Map<string, OffsetToCommit>()
  /** Transactional offset commits awaiting their transaction's marker, per producer id. */
  private readonly pendingTxnOffsets = new Map<number, Map<string, OffsetToCommit>>()
  private readonly listeners: ((e: GroupEvent) => void)[] = []

  constructor(
    readonly groupId: string,
    private readonly log: OffsetsLogWriter,
    private readonly now: () => number,
    /** Stalls of the process since a time (Time.frozenSince): left out of a member's silence. */
    private readonly frozenSince: (fromMs: number) => number = () => 0,
  ) {}

  onEvent(listener: (e: GroupEvent) => void): void {
    this.listeners.push(listener)
  }
  private emit(e: GroupEvent): void {
    for (const l of this.listeners) l(e)
  }

  get generationId(): number {
    return this.generation
  }
  memberIds(): string[] {
    return [...this.members.keys()]
  }
  hasMember(memberId: string): boolean {
    return this.members.has(memberId)
  }
  ownerOf(tp: TopicPartition): string | undefined {
    return this.owner.get(tpKey(tp.topic, tp.partition))
  }
  ownedBy(memberId: string): TopicPartition[] {
    const out: TopicPartition[] = []
    for (const [k, m] of this.owner) if (m === memberId) out.push(this.partitions.get(k)!)
    return out
  }

  /** The partitions of the subscribed topics. */
  setPartitions(tps: readonly TopicPartition[]): void {
    let changed = false
    for (const tp of tps) {
      const k = tpKey(tp.topic, tp.partition)
      if (!this.partitions.has(k)) {
        this.partitions.set(k, tp)
        changed = true
      }
    }
    if (changed) this.rebalance()
  }

  private rebalance(): void {
    this.generation += 1
    const assignment = computeAssignment([...this.partitions.keys()], [...this.members.keys()], this.owner)
    this.target = new Map()
    for (const [m, ps] of assignment) for (const p of ps) this.target.set(p, m)
  }

  join(clientId: string, sessionTimeoutMs: number): { memberId: string; generationId: number } {
    this.expireMembers()
    const memberId = `${clientId}-${this.nextMemberSeq++}`
    this.members.set(memberId, {
      memberId,
      clientId,
      sessionTimeoutMs,
      lastHeartbeatMs: this.now(),
      generationSeen: this.generation + 1,
      joinedGeneration: this.generation + 1,
    })
    this.rebalance()
    this.emit({ type: 'member-joined', memberId, generationId: this.generation, atMs: this.now() })
    return { memberId, generationId: this.generation }
  }

  /** LeaveGroup on a clean close: partitions are freed at once. */
  leave(memberId: string): void {
    if (!this.members.has(memberId)) return
    this.removeMember(memberId)
    this.emit({ type: 'member-left', memberId, generationId: this.generation, atMs: this.now() })
  }

  private removeMember(memberId: string): void {
    this.members.delete(memberId)
    for (const [k, m] of this.owner) if (m === memberId) this.owner.delete(k)
    this.rebalance()
  }

  /** Removes members whose session timed out. Called on every request and by the broker's tick. */
  expireMembers(): void {
    const now = this.now()
    for (const m of [...this.members.values()]) {
      // A stall of the whole process (every member and this coordinator frozen) is nobody's silence.
      if (
        now - m.lastHeartbeatMs > m.sessionTimeoutMs &&
        now - m.lastHeartbeatMs - this.frozenSince(m.lastHeartbeatMs) > m.sessionTimeoutMs
      ) {
        this.removeMember(m.memberId)
        this.emit({
          type: 'member-expired',
          memberId: m.memberId,
          generationId: this.generation,
          atMs: now,
          lastHeartbeatMs: m.lastHeartbeatMs,
        })
      }
    }
  }

  private requireMember(memberId: string): Member {
    this.expireMembers()
    const m = this.members.get(memberId)
    if (!m)
      throw new LogError(
        'UNKNOWN_MEMBER_ID',
        `member ${memberId} is not in group ${this.groupId} (session expired or left)`,
      )
    return m
  }

  /** Heartbeat: keeps the session alive and hands out the member's part of the current assignment. */
  heartbeat(memberId: string): HeartbeatResult {
    const m = this.requireMember(memberId)
    m.lastHeartbeatMs = this.now()
    m.generationSeen = this.generation
    const revoke: TopicPartition[] = []
    const assign: TopicPartition[] = []
    for (const [k, owner] of this.owner)
      if (owner === memberId && this.target.get(k) !== memberId) revoke.push(this.partitions.get(k)!)
    for (const [k, t] of this.target) {
      if (t === memberId && !this.owner.has(k)) {
        this.owner.set(k, memberId)
        assign.push(this.partitions.get(k)!)
      }
    }
    if (assign.length > 0)
      this.emit({
        type: 'partitions-assigned',
        memberId,
        partitions: assign,
        generationId: this.generation,
        atMs: this.now(),
      })
    return { generationId: this.generation, revoke, assign }
  }

  /** The consumer's background heartbeat: keeps the session alive, changes nothing else. */
  touch(memberId: string): boolean {
    this.expireMembers()
    const m = this.members.get(memberId)
    if (!m) return false
    m.lastHeartbeatMs = this.now()
    return true
  }

  /** The member handed these partitions off after committing them. */
  release(memberId: string, tps: readonly TopicPartition[]): void {
    this.requireMember(memberId)
    const released: TopicPartition[] = []
    for (const tp of tps) {
      const k = tpKey(tp.topic, tp.partition)
      if (this.owner.get(k) === memberId) {
        this.owner.delete(k)
        released.push(tp)
      }
    }
    if (released.length > 0)
      this.emit({ type: 'partitions-released', memberId, partitions: released, atMs: this.now() })
  }

  /**
   * The member must still be in the group, and its generation must not be older than the one in
   * which it was last (re)admitted: an expired member (a zombie) is fenced with UNKNOWN_MEMBER_ID.
   * Ownership (below) completes the check: a partition is owned by one member at a time, and only
   * moves after a clean release or the owner's removal.
   */
  private checkGeneration(memberId: string, generationId: number): void {
    const m = this.requireMember(memberId)
    if (generationId > this.generation || generationId < m.joinedGeneration) {
      throw new LogError(
        'ILLEGAL_GENERATION',
        `generation ${generationId} of member ${memberId} is not valid in group ${this.groupId} (current ` +
          `${this.generation})`,
      )
    }
  }

  private checkOwnership(memberId: string, offsets: readonly OffsetToCommit[]): void {
    for (const o of offsets) {
      if (this.owner.get(tpKey(o.topic, o.partition)) !== memberId) {
        throw new LogError(
          'ILLEGAL_GENERATION',
          `member ${memberId} does not own ${o.topic}-${o.partition} in generation ${this.generation}`,
        )
      }
    }
  }

  /** OffsetCommit (non-transactional): only a current member, at the current generation, for partitions it owns. */
  commitOffsets(memberId: string, generationId: number, offsets: readonly OffsetToCommit[]): void {
    this.checkGeneration(memberId, generationId)
    this.checkOwnership(memberId, offsets)
    this.log.appendOffsets(this.groupId, offsets, null)
    for (const o of offsets)
      this.committed.set(tpKey(o.topic, o.partition), { topic: o.topic, partition: o.partition, offset: o.offset })
  }

  /**
   * TxnOffsetCommit: offsets become visible only when the transaction commits. With a member id
   * and generation (exactly_once_v2, KIP-447) a zombie from an older generation is fenced here.
   */
  txnOffsetCommit(
    producerId: number,
    epoch: number,
    offsets: readonly OffsetToCommit[],
    member: { memberId: string; generationId: number } | null,
  ): void {
    if (member) {
      this.checkGeneration(member.memberId, member.generationId)
      this.checkOwnership(member.memberId, offsets)
    }
    this.log.appendOffsets(this.groupId, offsets, { producerId, epoch })
    let pending = this.pendingTxnOffsets.get(producerId)
    if (!pending) {
      pending = new Map()
      this.pendingTxnOffsets.set(producerId, pending)
    }
    for (const o of offsets) pending.set(tpKey(o.topic, o.partition), o)
  }

  /** Called by the transaction coordinator when the producer's transaction ends. */
  /** Returns how many offsets the transaction held. */
  completeTxn(producerId: number, result: ControlType): number {
    const pending = this.pendingTxnOffsets.get(producerId)
    this.pendingTxnOffsets.delete(producerId)
    if (!pending) return 0
    if (result === 'COMMIT')
      for (const [k, o] of pending) this.committed.set(k, { topic: o.topic, partition: o.partition, offset: o.offset })
    return pending.size
  }

  /** OffsetFetch: the offsets committed so far, whatever transactions are still pending. */
  fetchCommitted(tps: readonly TopicPartition[]): Map<string, number | null> {
    const out = new Map<string, number | null>()
    for (const tp of tps) {
      const k = tpKey(tp.topic, tp.partition)
      out.set(k, this.committed.get(k)?.offset ?? null)
    }
    return out
  }

  /**
   * OffsetFetch with requireStable: a partition with a pending transactional commit answers
   * UNSTABLE_OFFSET_COMMIT (retriable) instead of an offset that may still change.
   */
  fetchCommittedStable(tps: readonly TopicPartition[]): Map<string, number | null> {
    for (const tp of tps) {
      const k = tpKey(tp.topic, tp.partition)
      for (const pending of this.pendingTxnOffsets.values()) {
        if (pending.has(k))
          throw new LogError(
            'UNSTABLE_OFFSET_COMMIT',
            `${k} has a pending transactional offset commit in group ${this.groupId}`,
          )
      }
    }
    return this.fetchCommitted(tps)
  }

  allCommitted(): OffsetToCommit[] {
    return [...this.committed.values()].map((o) => ({ ...o }))
  }

  /**
   * The group as DescribeGroups shows it, read without side effects. The classic protocol's states
   * map onto this coordinator's incremental rebalance: Empty (no member), PreparingRebalance (a
   * member has not yet seen the current generation), CompletingRebalance (the generation's
   * assignment is known but a partition still waits for its previous owner's release), Stable.
   * Each member's assignment is its part of the current generation's target.
   */
  describe(): GroupDescription {
    const members = [...this.members.values()].sort((a, b) => (a.memberId < b.memberId ? -1 : 1))
    const assignment = (memberId: string) =>
      [...this.target]
        .filter(([, m]) => m === memberId)
        .map(([k]) => this.partitions.get(k)!)
        .sort((a, b) => comparePartitionKeys(tpKey(a.topic, a.partition), tpKey(b.topic, b.partition)))
    return {
      groupId: this.groupId,
      state: this.describedState(),
      generationId: this.generation,
      protocolType: 'consumer',
      protocol: 'sticky',
      members: members.map((m) => ({
        memberId: m.memberId,
        clientId: m.clientId,
        host: null,
        assignment: assignment(m.memberId),
      })),
    }
  }

  private describedState(): GroupState {
    if (this.members.size === 0) return 'Empty'
    if ([...this.members.values()].some((m) => m.generationSeen < this.generation)) return 'PreparingRebalance'
    if ([...this.target].some(([k, m]) => this.owner.get(k) !== m)) return 'CompletingRebalance'
    return 'Stable'
  }

  /** Partitions with pending transactional offsets (for views and tests). */
  pendingPartitions(): string[] {
    const out = new Set<string>()
    for (const p of this.pendingTxnOffsets.values()) for (const k of p.keys()) out.add(k)
    return [...out]
  }
}
