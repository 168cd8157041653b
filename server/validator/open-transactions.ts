// Open transactions (docs/measures.md): partitions whose last stable offset is below the high
// watermark. On a cluster of the run's own (the embedded log) every topic counts, internal ones
// included; on a shared cluster only the application's own topics do, since __consumer_offsets
// partitions hold other groups' transactions too.

import { type LogInspector, tpKey } from '../log/types.ts'
import type { ValidateOptions } from './validator.ts'

export async function openTransactionPartitions(
  inspector: LogInspector,
  topics: ReadonlyMap<string, number>,
  opts: ValidateOptions,
  dlqTopic: string | null,
): Promise<string[]> {
  const own = new Set([opts.inputTopic, opts.outputTopic, opts.changelogTopic, ...(dlqTopic ? [dlqTopic] : [])])
  const open: string[] = []
  for (const [topic, partitions] of topics) {
    if (inspector.sharedCluster && !own.has(topic)) continue
    for (let partition = 0; partition < partitions; partition++) {
      const o = await inspector.offsets({ topic, partition })
      if (o.lastStableOffset < o.highWatermark) open.push(tpKey(topic, partition))
    }
  }
  return open.sort()
}
