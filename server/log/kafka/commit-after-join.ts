// When an offset commit refused for its generation may be sent again (kafka-consumer.ts).
//
// kafkajs sends a commit on the coordinator's connection, and a broker answers one request of a
// connection at a time: a commit sent while the member's JoinGroup waits for a rebalance is
// answered after it, refused for the generation that has just ended. Kafka Streams takes a commit
// refused during a rebalance as non-fatal and commits again after it. That is right only when the
// join kept this member (same member id: it was not dropped and taken back as a new member) and
// every partition of the commit (no other member may own one of them yet).

/** What the consumer knows of its membership at one moment. */
export interface Membership {
  /** Joins completed so far. */
  joins: number
  memberId: string
  /** The partitions it owns, as tpKey strings. */
  owned: ReadonlySet<string>
}

/** True when a join completed since `before`, kept the member id, and kept every partition of the commit. Pure. */
export function mayCommitAgainAfterJoin(
  before: Pick<Membership, 'joins' | 'memberId'>,
  now: Membership,
  committed: readonly string[],
): boolean {
  return now.joins > before.joins && now.memberId === before.memberId && committed.every((key) => now.owned.has(key))
}
