// Where Kafka keeps a group's offsets and a transactional id's state: the coordinators hash the id
// onto their internal topic's partitions (GroupCoordinator and TransactionStateManager both use
// Utils.abs(id.hashCode()) % partitions). One function for both, for the lab and the observer.

/** Java's String.hashCode over UTF-16 code units. */
export function javaStringHashCode(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0
  return h
}

/** The internal topic's partition that holds a group id or a transactional id (Utils.abs(hashCode) % partitions). */
export function internalPartitionFor(id: string, partitions: number): number {
  if (!Number.isInteger(partitions) || partitions <= 0)
    throw new RangeError(`an internal topic with ${partitions} partitions`)
  // Kafka's Utils.abs: Math.abs, and 0 for Integer.MIN_VALUE (whose negation overflows).
  const h = javaStringHashCode(id)
  return (h === -2_147_483_648 ? 0 : Math.abs(h)) % partitions
}
