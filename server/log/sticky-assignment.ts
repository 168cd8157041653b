// Sticky balanced assignment of partitions to the members of a consumer group, pure and
// deterministic, as Kafka Streams assigns tasks: a member keeps what it holds up to its quota, so a
// rebalance moves only the partitions it must (a dead member's, or those a newcomer needs to reach
// its share). The embedded group coordinator and the kafkajs assigner (kafka/sticky-assigner.ts)
// both assign with it.

/**
 * Sticky balanced assignment, pure and deterministic: members keep what they hold up to their
 * quota; the rest goes to members below quota in member-id order.
 */
export function computeAssignment(
  partitions: readonly string[],
  memberIds: readonly string[],
  current: ReadonlyMap<string, string>,
): Map<string, string[]> {
  const members = [...memberIds].sort()
  const result = new Map<string, string[]>(members.map((m) => [m, []]))
  if (members.length === 0) return result
  const sorted = [...partitions].sort(comparePartitionKeys)
  const base = Math.floor(sorted.length / members.length)
  let extra = sorted.length % members.length
  const quota = new Map<string, number>()
  // Members that already hold more get the +1 slots first, to move as little as possible.
  const holding = (m: string) => sorted.filter((p) => current.get(p) === m).length
  const byHolding = [...members].sort((a, b) => holding(b) - holding(a) || (a < b ? -1 : 1))
  for (const m of byHolding) {
    quota.set(m, base + (extra > 0 ? 1 : 0))
    if (extra > 0) extra--
  }
  const unassigned: string[] = []
  for (const p of sorted) {
    const owner = current.get(p)
    if (owner !== undefined && result.has(owner) && result.get(owner)!.length < quota.get(owner)!)
      result.get(owner)!.push(p)
    else unassigned.push(p)
  }
  for (const p of unassigned) {
    const m = members.find((x) => result.get(x)!.length < quota.get(x)!)!
    result.get(m)!.push(p)
  }
  return result
}

export function comparePartitionKeys(a: string, b: string): number {
  const ia = a.lastIndexOf('-')
  const ib = b.lastIndexOf('-')
  const ta = a.slice(0, ia)
  const tb = b.slice(0, ib)
  if (ta !== tb) return ta < tb ? -1 : 1
  return Number(a.slice(ia + 1)) - Number(b.slice(ib + 1))
}
