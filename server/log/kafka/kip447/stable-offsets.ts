// Committed offsets through OffsetFetch v7 with require_stable (KIP-447), as the Java consumer asks
// for them under isolation.level=read_committed: while another member's open transaction holds
// offsets for a partition, the group coordinator answers UNSTABLE_OFFSET_COMMIT, and the new owner
// waits for that transaction to commit or abort instead of starting from older offsets (and
// redoing what the transaction is about to commit). Sent over kafkajs's own broker connections.

import type { Kafka } from 'kafkajs'
import { LogError } from '../../errors.ts'
import { createCluster, type KafkajsCluster } from '../kafka-client.ts'
import { sender } from '../raw-protocol.ts'
import { offsetFetchV7, type OffsetFetchResponse, type OffsetStability } from './kip447-requests.ts'

/**
 * How long a fetch waits for unstable offsets: beyond the longest
 * transaction.timeout.ms a lab sets, then it fails retriably.
 */
const UNSTABLE_DEADLINE_MS = 120_000
const BACKOFF_MS = { first: 20, max: 500 }
const RETRY_TYPES = new Set([
  'UNSTABLE_OFFSET_COMMIT',
  'COORDINATOR_LOAD_IN_PROGRESS',
  'COORDINATOR_NOT_AVAILABLE',
  'NOT_COORDINATOR',
  'GROUP_COORDINATOR_NOT_AVAILABLE',
  'NOT_COORDINATOR_FOR_GROUP',
])

export class StableOffsetFetcher {
  private cluster: KafkajsCluster | null = null

  constructor(
    private readonly kafka: Kafka,
    private readonly groupId: string,
  ) {}

  /** Committed offset per partition (-1: none); with require-stable, waits out open transactions' offsets. */
  async fetch(
    topics: { topic: string; partitions: number[] }[],
    stability: OffsetStability,
  ): Promise<OffsetFetchResponse['topics']> {
    this.cluster ??= createCluster(this.kafka)
    const cluster = this.cluster
    await cluster.connect()
    const deadline = Date.now() + UNSTABLE_DEADLINE_MS
    for (let attempt = 0; ; attempt++) {
      try {
        const broker = await cluster.findGroupCoordinator({ groupId: this.groupId })
        return (await sender(broker)(offsetFetchV7(this.groupId, topics, stability))).topics
      } catch (e) {
        const type = (e as { type?: string }).type ?? ''
        if (!RETRY_TYPES.has(type)) throw e
        if (Date.now() >= deadline)
          throw new LogError(
            'UNSTABLE_OFFSET_COMMIT',
            `committed offsets of group ${this.groupId} still ${type} after ${UNSTABLE_DEADLINE_MS} ms`,
            { cause: e },
          )
        await new Promise((r) => setTimeout(r, Math.min(BACKOFF_MS.max, BACKOFF_MS.first * 2 ** attempt)))
        if (type !== 'UNSTABLE_OFFSET_COMMIT') await cluster.refreshMetadata().catch(() => {})
      }
    }
  }

  async close(): Promise<void> {
    await this.cluster?.disconnect().catch(() => {})
    this.cluster = null
  }
}
