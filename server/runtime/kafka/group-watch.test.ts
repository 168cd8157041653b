import type { Admin } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { MockTime } from '../../log/time.ts'
import { silentLogger } from '../../logging.ts'
import { RecoveryTracker } from '../recovery-tracker.ts'
import { GroupWatch } from './group-watch.ts'

/** A cluster whose input ends are answered when the test says, with what the test says. */
function slowCluster() {
  let answer: ((ends: number[]) => void) | null = null
  const admin = {
    fetchTopicOffsets: () =>
      new Promise<{ partition: number; high: string }[]>((resolve) => {
        answer = (ends) => resolve(ends.map((e, partition) => ({ partition, high: String(e), low: '0', offset: '0' })))
      }),
  } as unknown as Admin
  return { admin, answer: (ends: number[]) => answer?.(ends) }
}

describe('the group watch', () => {
  it('pairs the end offsets with the committed offsets read before them: committed ≤ end, never above', async () => {
    const time = new MockTime()
    const cluster = slowCluster()
    const watch = new GroupWatch({
      admin: cluster.admin,
      groupId: 'g',
      inputTopic: 'in',
      partitions: 2,
      tracker: new RecoveryTracker(),
      time,
      log: silentLogger,
      emit: () => {},
      loadFinished: () => false,
    })
    watch.noteCommitted(0, 100)
    watch.noteCommitted(1, 40)
    let stop = false
    const loop = watch.healthLoop(() => stop)
    await time.runFor(1_000)
    // While the ends are asked for, a worker reports commits past what the answer will say.
    watch.noteCommitted(0, 160)
    cluster.answer([150, 60])
    await time.settle()
    // The newest of each, read at different moments: 160 committed against an end of 150.
    expect(watch.committed[0]).toBe(160)
    expect(watch.inputEnds[0]).toBe(150)
    // At one moment: the committed offsets as they stood when the ends were asked for.
    expect(watch.offsetsAtOneMoment()).toEqual({ committed: [100, 40], ends: [150, 60] })
    // The next read pairs the next ends with the commits known when it was asked.
    await time.runFor(1_000)
    cluster.answer([170, 60])
    await time.settle()
    stop = true
    await time.runFor(1_000)
    await loop
    expect(watch.offsetsAtOneMoment()).toEqual({ committed: [160, 40], ends: [170, 60] })
  })
})
