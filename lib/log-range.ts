// Where a journal entry or a scenario's evidence points: one partition of the lab's own topics,
// named by role, and optionally a range of its records. One shape and one convention for both.

export type LabTopicRole = 'input' | 'output' | 'changelog'

/**
 * A partition of one of the lab's topics and, when known, its records from `fromOffset` up to but
 * not including `toOffset` (half-open, as Kafka's offset ranges are: `toOffset` is the first offset
 * after the range).
 */
export interface PartitionLink {
  topic: LabTopicRole
  partition: number
  fromOffset?: number
  toOffset?: number
}

/** A link whose offsets are known. */
export type RecordRange = Required<PartitionLink>
