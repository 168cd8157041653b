// A sticky partition assigner for kafkajs, as Kafka Streams' own assignor is sticky: each member
// tells the group leader, in its JoinGroup metadata's user data, the partitions it owns and the
// generation it got them in; the leader keeps every partition with its owner up to the owner's
// quota (sticky-assignment.ts). kafkajs's RoundRobinAssigner deals every partition out afresh at
// each rebalance, so when one worker of three died the survivors' partitions moved too. kafkajs
// gives no hook before it releases a partition, so every move redid records the old owner had
// processed but not yet committed: duplicates under at_least_once that no kill had caused.
//
// Two members may claim one partition (a member the coordinator dropped rejoins and still claims
// what it had): the claim from the later generation wins, as in Kafka's StickyAssignor.

import { AssignerProtocol, type PartitionAssigner } from 'kafkajs'
import { computeAssignment } from '../sticky-assignment.ts'
import type { TopicPartition } from '../types.ts'
import { tpKey } from '../types.ts'

export const STICKY_ASSIGNER_NAME = 'EoscopeStickyAssigner'
const VERSION = 0

/** What a member owns as it joins: its partitions and the generation it got them in (-1: none yet). */
export interface OwnedPartitions {
  generation: number
  partitions: readonly TopicPartition[]
}

export interface MemberClaim {
  memberId: string
  claim: OwnedPartitions | null
}

/** The claim carried in a member's JoinGroup user data. */
export function encodeClaim(owned: OwnedPartitions): Buffer {
  return Buffer.from(
    JSON.stringify({
      generation: owned.generation,
      partitions: owned.partitions.map((tp) => [tp.topic, tp.partition]),
    }),
  )
}

/** A member's claim, or null when its user data holds none (another client, or bytes it cannot read). */
export function decodeClaim(userData: Buffer | null | undefined): OwnedPartitions | null {
  if (!userData || userData.length === 0) return null
  try {
    const raw = JSON.parse(userData.toString('utf8')) as { generation?: unknown; partitions?: unknown }
    if (!Number.isInteger(raw.generation) || !Array.isArray(raw.partitions)) return null
    const partitions: TopicPartition[] = []
    for (const p of raw.partitions) {
      if (Array.isArray(p) && typeof p[0] === 'string' && Number.isInteger(p[1]))
        partitions.push({ topic: p[0], partition: p[1] as number })
    }
    return { generation: raw.generation as number, partitions }
  } catch {
    return null
  }
}

/**
 * The leader's assignment: each partition's owner is the member claiming it from the latest
 * generation (ties: the lowest member id); then sticky and balanced. Pure.
 */
export function stickyGroupAssignment(
  partitions: readonly TopicPartition[],
  members: readonly MemberClaim[],
): Map<string, TopicPartition[]> {
  const byKey = new Map(partitions.map((tp) => [tpKey(tp.topic, tp.partition), tp]))
  const owner = new Map<string, { memberId: string; generation: number }>()
  for (const { memberId, claim } of [...members].sort((a, b) =>
    a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0,
  )) {
    for (const tp of claim?.partitions ?? []) {
      const key = tpKey(tp.topic, tp.partition)
      const held = owner.get(key)
      if (byKey.has(key) && (!held || claim!.generation > held.generation))
        owner.set(key, { memberId, generation: claim!.generation })
    }
  }
  const current = new Map([...owner].map(([key, o]) => [key, o.memberId]))
  const assigned = computeAssignment(
    [...byKey.keys()],
    members.map((m) => m.memberId),
    current,
  )
  return new Map([...assigned].map(([memberId, keys]) => [memberId, keys.map((k) => byKey.get(k)!)]))
}

/** The kafkajs assigner; `owned` is read at each join, before the member's JoinGroup goes out. */
export function stickyAssigner(owned: () => OwnedPartitions): PartitionAssigner {
  return ({ cluster }) => ({
    name: STICKY_ASSIGNER_NAME,
    version: VERSION,
    async assign({ members, topics }) {
      const partitions = topics.flatMap((topic) =>
        cluster.findTopicPartitionMetadata(topic).map((m) => ({ topic, partition: m.partitionId })),
      )
      const claims = members.map((m) => ({
        memberId: m.memberId,
        claim: decodeClaim(AssignerProtocol.MemberMetadata.decode(m.memberMetadata)?.userData),
      }))
      const assignment = stickyGroupAssignment(partitions, claims)
      return members.map(({ memberId }) => {
        const byTopic: Record<string, number[]> = {}
        for (const tp of assignment.get(memberId) ?? []) {
          let ofTopic = byTopic[tp.topic]
          if (!ofTopic) {
            ofTopic = []
            byTopic[tp.topic] = ofTopic
          }
          ofTopic.push(tp.partition)
        }
        return {
          memberId,
          memberAssignment: AssignerProtocol.MemberAssignment.encode({
            version: VERSION,
            assignment: byTopic,
            userData: Buffer.alloc(0),
          }),
        }
      })
    },
    protocol({ topics }) {
      return {
        name: STICKY_ASSIGNER_NAME,
        metadata: AssignerProtocol.MemberMetadata.encode({ version: VERSION, topics, userData: encodeClaim(owned()) }),
      }
    },
  })
}
