// The Group view's part of a snapshot: the lab's consumer group as its coordinator holds it, the
// generations seen during the lab's life, and committed vs end offset and lag per input partition.

/** Kafka's classic group states; Unknown when the coordinator answers something else. */
export type GroupStateName = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead' | 'Unknown'

export interface GroupMemberView {
  memberId: string
  clientId: string
  /** The client's host as the coordinator saw it; null for an in-process member. */
  host: string | null
  /** The eoscope worker this member is, where a worker reported this member id. */
  workerId: string | null
  /** The member's input partitions in the current generation. */
  partitions: number[]
}

export interface GenerationMember {
  memberId: string
  workerId: string | null
  partitions: number[]
}

/** How a member of a generation was gone from the next one: its worker killed, stopped cleanly, or not known. */
export type GoneHow = 'killed' | 'left' | 'gone'

export interface GenerationEnd {
  atMs: number
  joined: { memberId: string; workerId: string | null }[]
  gone: { memberId: string; workerId: string | null; how: GoneHow }[]
  /** Input partitions whose member changed. */
  moved: { partition: number; from: string | null; to: string | null }[]
}

export interface GroupGeneration {
  /** null: the generation is not known (a Kafka group whose members have not reported theirs). */
  generationId: number | null
  /** When the lab first saw it Stable. */
  startedAtMs: number
  members: GenerationMember[]
  /** What ended it: the difference to the next generation; null while it is the current one. */
  endedBy: GenerationEnd | null
}

export interface LagPoint {
  atMs: number
  /** The group's committed offset (the next record to process); null: none committed yet. */
  committed: number | null
  /** The partition's high watermark. */
  end: number
  /** end − committed (what `kafka-consumer-groups.sh` shows as LAG); null with no committed offset. */
  lag: number | null
}

export interface PartitionLagSeries {
  partition: number
  points: LagPoint[]
}

export interface GroupView {
  groupId: string
  topic: string
  state: GroupStateName
  generationId: number | null
  /**
   * Where the generation comes from: the coordinator's answer, or the members' own
   * ConsumerGroupMetadata (Kafka's DescribeGroups has none).
   */
  generationSource: 'coordinator' | 'members'
  protocolType: string
  protocol: string
  members: GroupMemberView[]
  /** The generations seen Stable, oldest first, the last MAX_GENERATIONS of them. */
  generations: GroupGeneration[]
  /** Generations seen before the oldest kept. */
  earlierGenerations: number
  lag: PartitionLagSeries[]
  /** When the coordinator was last asked. */
  readAtMs: number
  /** The last describe failed (the figures are from readAtMs). */
  error?: string
}

declare module './lab-protocol.ts' {
  interface LabSnapshot {
    /**
     * The consumer group: coordinator view, generations, lag per input partition (read at the partitions table's pace).
     */
    group?: GroupView
  }
}
