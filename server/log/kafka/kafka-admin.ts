// Topic administration through kafkajs's admin client.

import type { Admin } from 'kafkajs'
import { LogError } from '../errors.ts'
import type { LogAdmin, TopicSpec } from '../types.ts'
import { mapErrors } from './kafka-errors.ts'

const LEADER_WAIT_MS = 15_000

/**
 * Waits until every partition of the new topics has a leader. kafkajs's own waitForLeaders gives
 * up on the UNKNOWN_TOPIC_OR_PARTITION that a KRaft broker answers while the topic propagates.
 */
async function waitForLeaders(admin: Admin, topics: TopicSpec[]): Promise<void> {
  const deadline = Date.now() + LEADER_WAIT_MS
  for (;;) {
    try {
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics: topics.map((t) => t.topic) })
      const ready = topics.every((t) => {
        const m = metadata.find((x) => x.name === t.topic)
        return m !== undefined && m.partitions.length === t.partitions && m.partitions.every((p) => p.leader >= 0)
      })
      if (ready) return
    } catch (e) {
      if (Date.now() > deadline) throw e
    }
    if (Date.now() > deadline)
      throw new LogError(
        'REQUEST_TIMED_OUT',
        `topics ${topics.map((t) => t.topic).join(', ')} have no leaders after ${LEADER_WAIT_MS} ms`,
      )
    await new Promise((r) => setTimeout(r, 50))
  }
}

export class KafkaLogAdmin implements LogAdmin {
  constructor(private readonly admin: () => Promise<Admin>) {}

  /** Creates the missing topics and waits for their leaders; an existing topic must have the same partition count. */
  async createTopics(topics: TopicSpec[]): Promise<void> {
    if (topics.length === 0) return
    for (const t of topics) {
      if (!Number.isInteger(t.partitions) || t.partitions < 1)
        throw new LogError('INVALID_REQUEST', `topic ${t.topic}: partitions must be a positive integer`)
    }
    const admin = await this.admin()
    await mapErrors('create topics', async () => {
      const existing = new Set(await admin.listTopics())
      const missing = topics.filter((t) => !existing.has(t.topic))
      if (missing.length > 0) {
        await admin.createTopics({
          waitForLeaders: false,
          topics: missing.map((t) => ({
            topic: t.topic,
            numPartitions: t.partitions,
            configEntries: t.compacted ? [{ name: 'cleanup.policy', value: 'compact' }] : [],
          })),
        })
        await waitForLeaders(admin, missing)
      }
      const present = topics.filter((t) => existing.has(t.topic))
      if (present.length === 0) return
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics: present.map((t) => t.topic) })
      for (const t of present) {
        const m = metadata.find((x) => x.name === t.topic)
        if (m && m.partitions.length !== t.partitions) {
          throw new LogError(
            'TOPIC_ALREADY_EXISTS',
            `topic ${t.topic} exists with ${m.partitions.length} partitions, not ${t.partitions}`,
          )
        }
      }
    })
  }

  /** Deletes the topics that exist; unknown names are ignored. */
  async deleteTopics(topics: string[]): Promise<void> {
    if (topics.length === 0) return
    const admin = await this.admin()
    await mapErrors('delete topics', async () => {
      const existing = new Set(await admin.listTopics())
      const present = topics.filter((t) => existing.has(t))
      if (present.length > 0) await admin.deleteTopics({ topics: present })
    })
  }
}
