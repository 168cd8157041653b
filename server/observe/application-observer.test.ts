// ApplicationObserver's reading of the generations from __consumer_offsets, over a fake source: a
// group partition where transactional offset commits left COMMIT markers in front of the
// coordinator's GroupMetadata record. A read that returns markers alone must still move on; before,
// it stopped there, every sample read the same markers again, and no generation was ever shown
// (eoscope's own lab on Kafka, exactly_once).

import { describe, expect, it } from 'vitest'
import type { GroupDescription } from '../log/group-description.ts'
import { ApplicationObserver, type ObserveSource, type OffsetsTopicRecordPage } from './application-observer.ts'
import { encodeGroupMetadataKey, encodeGroupMetadataValue } from './__fixtures__/group-metadata-encoder.ts'
import { offsetsPartitionOf } from './group-metadata-record.ts'

const APP = 'app'
const member = {
  memberId: 'worker-1-abc',
  groupInstanceId: null,
  clientId: 'worker-1',
  clientHost: '/127.0.0.1',
  rebalanceTimeoutMs: 30_000,
  sessionTimeoutMs: 10_000,
}
const generation = (n: number) => ({
  offset: 0,
  timestamp: 1_000 * n,
  key: encodeGroupMetadataKey(APP),
  value: encodeGroupMetadataValue({
    version: 3,
    protocolType: 'consumer',
    generation: n,
    protocol: 'RoundRobinAssigner',
    leader: member.memberId,
    currentStateTimestamp: 1_000 * n,
    members: [member],
  }),
})

/** A __consumer_offsets partition as pages: each read returns one page from the reader's offset. */
function sourceWith(
  pages: OffsetsTopicRecordPage[],
  highWatermark: number,
): { source: ObserveSource; reads: number[] } {
  const reads: number[] = []
  const group: GroupDescription = {
    groupId: APP,
    state: 'Stable',
    generationId: null,
    protocolType: 'consumer',
    protocol: 'RoundRobinAssigner',
    members: [],
  }
  const source: ObserveSource = {
    inspector: {
      topics: async () => [{ topic: '__consumer_offsets', partitions: 50 }],
      offsets: async () => ({ logStartOffset: 0, lastStableOffset: 0, highWatermark: 0 }),
      readRaw: async () => [],
      committedOffsets: async () => [],
      describeGroup: async () => group,
    },
    transactions: { transactions: async () => ({ coordinators: [], producers: [] }), abortTransaction: async () => {} },
    readOffsetsTopic: async (partition, from) => {
      expect(partition).toBe(offsetsPartitionOf(APP, 50))
      reads.push(from)
      return (
        pages.find((p) => p.nextOffset > from && (p.records[0]?.offset ?? from) >= from) ?? {
          records: [],
          nextOffset: from,
          highWatermark,
        }
      )
    },
  }
  return { source, reads }
}

describe("ApplicationObserver: generations from the group's __consumer_offsets partition", () => {
  it('reads past a page of COMMIT markers alone to the GroupMetadata record behind it', async () => {
    const hw = 12
    const { source, reads } = sourceWith(
      [
        { records: [], nextOffset: 5, highWatermark: hw },
        { records: [{ ...generation(4), offset: 7 }], nextOffset: 12, highWatermark: hw },
      ],
      hw,
    )
    const s = await new ApplicationObserver(source, { applicationId: APP, input: [], output: [] }).sample()
    expect(reads).toEqual([0, 5])
    expect(s.group.generation).toBe(4)
    expect(s.notes.filter((n) => n.includes('__consumer_offsets'))).toEqual([])
  })

  it('says so when a read gives nothing and does not move, and goes on from there at the next sample', async () => {
    const hw = 12
    const { source, reads } = sourceWith(
      [{ records: [{ ...generation(2), offset: 3 }], nextOffset: 4, highWatermark: hw }],
      hw,
    )
    const observer = new ApplicationObserver(source, { applicationId: APP, input: [], output: [] })
    const s = await observer.sample()
    expect(s.group.generation).toBe(2)
    expect(s.notes).toContain(
      '__consumer_offsets-' +
        offsetsPartitionOf(APP, 50) +
        ' gave nothing from offset 4 (high watermark 12): generations continue in the next sample',
    )
    await observer.sample()
    expect(reads).toEqual([0, 4, 4])
  })
})
