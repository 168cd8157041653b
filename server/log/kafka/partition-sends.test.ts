import { describe, expect, it } from 'vitest'
import type { ProduceRecord } from '../types.ts'
import { byPartition, sendPerPartition, type PartitionSend } from './partition-sends.ts'

const r = (topic: string, partition: number, key: string): ProduceRecord => ({ topic, partition, key, value: key })

describe('one produce call per partition', () => {
  const records = [r('out', 0, 'a'), r('log', 0, 'b'), r('out', 1, 'c'), r('out', 0, 'd'), r('log', 0, 'e')]

  it('groups the records by topic and partition, each group in the caller\'s order', () => {
    expect(byPartition(records).map((g) => [g.topic, g.partition, g.records.map((x) => x.key)])).toEqual([
      ['out', 0, ['a', 'd']],
      ['log', 0, ['b', 'e']],
      ['out', 1, ['c']],
    ])
  })

  it('sends each partition with a call of its own and answers each one\'s base offset', async () => {
    const calls: PartitionSend[] = []
    const base = await sendPerPartition(records, async (p) => (calls.push(p), 100 * (calls.length)))
    expect(calls.map((c) => `${c.topic}-${c.partition}:${c.records.length}`)).toEqual(['out-0:2', 'log-0:2', 'out-1:1'])
    expect([...base]).toEqual([['out\u00000', 100], ['log\u00000', 200], ['out\u00001', 300]])
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
