// A consumer group as its coordinator holds it (what DescribeGroups answers, and what
// `kafka-consumer-groups.sh --describe --members --verbose` prints): state, generation, protocol,
// and each member with its assignment.

import type { TopicPartition } from './types.ts'

/** The classic group protocol's states (Kafka's GroupState); Unknown when the coordinator says otherwise. */
export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead' | 'Unknown'

export const GROUP_STATES: readonly GroupState[] = [
  'Empty',
  'PreparingRebalance',
  'CompletingRebalance',
  'Stable',
  'Dead',
]

export function groupStateOf(s: string): GroupState {
  return (GROUP_STATES as readonly string[]).includes(s) ? (s as GroupState) : 'Unknown'
}

export interface GroupMemberDescription {
  memberId: string
  clientId: string
  /** The client's host as the coordinator saw it; null for an in-process member (the embedded log). */
  host: string | null
  /** The member's part of the current generation's assignment. */
  assignment: TopicPartition[]
}

export interface GroupDescription {
  groupId: string
  state: GroupState
  /**
   * The coordinator's generation, where its answer has one. Kafka's DescribeGroups (every version
   * of the classic protocol) carries none: null there, and the members' own
   * ConsumerGroupMetadata is the source.
   */
  generationId: number | null
  protocolType: string
  /** The assignor the group agreed on (kafkajs: EoscopeStickyAssigner; embedded: sticky). */
  protocol: string
  members: GroupMemberDescription[]
}
