// Grouping helpers for requests that kafkajs shapes by topic.

import { forEachPartitionRun } from '../partition-groups.ts'
import type { TopicPartition } from '../types.ts'

/** Items grouped by topic, each group in input order. */
export function byTopic<T extends { topic: string }>(items: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const item of items) {
    const list = out.get(item.topic)
    if (list) list.push(item)
    else out.set(item.topic, [item])
  }
  return out
}

/** A kafkajs assignment ({ topic: partitions }) as a list. */
export function fromAssignment(assignment: Record<string, number[]>): TopicPartition[] {
  const out: TopicPartition[] = []
  for (const [topic, partitions] of Object.entries(assignment))
    for (const partition of partitions) out.push({ topic, partition })
  return out.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
}

/**
 * The topics and partitions records go to, each once, in order of first appearance (as AddPartitionsToTxn takes them).
 */
export function topicPartitionsOf(
  records: readonly TopicPartition[],
): { topic: string; partitions: { partition: number }[] }[] {
  const byTopicName = new Map<string, Set<number>>()
  forEachPartitionRun(records, (from) => {
    const r = records[from]!
    let partitions = byTopicName.get(r.topic)
    if (!partitions) {
      partitions = new Set()
      byTopicName.set(r.topic, partitions)
    }
    partitions.add(r.partition)
  })
  return [...byTopicName].map(([topic, ps]) => ({ topic, partitions: [...ps].map((partition) => ({ partition })) }))
}
