import { describe, expect, it } from 'vitest'
import type { ProduceRecord } from '../types.ts'
import { sendPerPartition, type PartitionSend } from './partition-sends.ts'

const r = (topic: string, partition: number, key: string): ProduceRecord => ({ topic, partition, key, value: key })

describe('one produce call per partition', () => {
  const records = [r('out', 0, 'a'), r('log', 0, 'b'), r('out', 1, 'c'), r('out', 0, 'd'), r('log', 0, 'e')]

  it("sends each partition with a call of its own and answers each one's base offset", async () => {
    const calls: PartitionSend[] = []
    const sent = await sendPerPartition(records, async (p) => {
      calls.push(p)
      return 100 * calls.length
    })
    expect(calls.map((c) => `${c.topic}-${c.partition}:${c.records.map((x) => x.key).join('')}`)).toEqual([
      'out-0:ad',
      'log-0:be',
      'out-1:c',
    ])
    expect(sent.groups.map((g, i) => [g.key, sent.baseOffsets[i]])).toEqual([
      ['out-0', 100],
      ['log-0', 200],
      ['out-1', 300],
    ])
  })

  it('throws a failure only once no other call of the send is still in flight', async () => {
    let releaseSlow!: () => void
    let slowDone = false
    const slow = new Promise<void>((res) => (releaseSlow = res))
    const sent = sendPerPartition(records, async (p) => {
      if (p.topic === 'log') throw new Error('NOT_LEADER_OR_FOLLOWER')
      if (p.partition === 1) {
        await slow
        slowDone = true
      }
      return 0
    })
    let settled = false
    sent.catch(() => undefined).finally(() => (settled = true))
    await new Promise((res) => setTimeout(res, 20))
    // The failure is known, but out-1's request is still in flight: no answer yet.
    expect(settled).toBe(false)
    releaseSlow()
    await expect(sent).rejects.toThrow('NOT_LEADER_OR_FOLLOWER')
    expect(slowDone).toBe(true)
  })
})
