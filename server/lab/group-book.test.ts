// The Group view's part of the dashboard's snapshot, on the embedded log with a virtual clock:
// one member per live worker in the coordinator's generation, and a kill seen as the next
// generations, the dead member gone (killed) and its partitions on the others.

import { describe, expect, it } from 'vitest'
import type { LabSnapshot } from '../../lib/lab-protocol.ts'
import { MockTime } from '../log/time.ts'
import { Lab } from './lab.ts'
import { inProcessRuntimes } from '../runtime/runtime-factory.ts'

const stableWithAll = (s: LabSnapshot) => {
  const g = s.group
  const running = s.workers.filter((w) => w.state === 'running')
  return (
    g !== undefined &&
    g.state === 'Stable' &&
    g.members.length === running.length &&
    running.every((w) => g.members.some((m) => m.workerId === w.id))
  )
}

describe('the group view of a lab', () => {
  const membersThenKillGeneration =
    'shows one member per worker, then a kill as a later generation with the dead member’s partitions on the ' +
    'others'
  it(membersThenKillGeneration, async () => {
    const time = new MockTime()
    const lab = new Lab(inProcessRuntimes({ time, workers: 3, partitions: 6, seed: 5 }), {
      ratePerSec: 200,
      snapshotIntervalMs: 100,
      validateIntervalMs: 1_000,
    })
    await time.runUntilSettled(lab.start())
    await time.runUntil(() => stableWithAll(lab.snapshot()), 30_000, 50)
    const before = lab.snapshot().group!
    expect(before).toMatchObject({
      groupId: lab.snapshot().applicationId ?? before.groupId,
      generationSource: 'coordinator',
      protocolType: 'consumer',
    })
    expect(before.members.flatMap((m) => m.partitions).sort()).toEqual([0, 1, 2, 3, 4, 5])
    const n = before.generationId!
    expect(before.generations[before.generations.length - 1]!.generationId).toBe(n)

    const victim = before.members[0]!
    expect(await time.runUntilSettled(lab.execute('killWorker', { workerId: victim.workerId! }))).toEqual({ ok: true })
    const laterGeneration = () =>
      lab
        .snapshot()
        .group!.generations.find((g) => g.generationId! > n && !g.members.some((m) => m.memberId === victim.memberId))
    await time.runUntil(() => laterGeneration() !== undefined, 60_000, 50)
    const next = laterGeneration()!
    expect(next.members.flatMap((m) => m.partitions).sort()).toEqual([0, 1, 2, 3, 4, 5])
    for (const p of victim.partitions)
      expect(next.members.find((m) => m.partitions.includes(p))!.memberId).not.toBe(victim.memberId)
    // The generation that had the victim ended with it gone, killed, and its partitions moved.
    const ended = lab
      .snapshot()
      .group!.generations.find((g) => g.endedBy?.gone.some((x) => x.memberId === victim.memberId))!
    expect(ended.endedBy!.gone).toContainEqual({ memberId: victim.memberId, workerId: victim.workerId, how: 'killed' })
    expect(ended.endedBy!.moved.filter((m) => m.from === victim.memberId).map((m) => m.partition)).toEqual(
      victim.partitions,
    )

    // Lag per input partition: HW − committed at each sample.
    for (const s of lab.snapshot().group!.lag)
      for (const p of s.points) if (p.committed !== null) expect(p.lag).toBe(Math.max(0, p.end - p.committed))
    expect(lab.snapshot().group!.lag.map((s) => s.partition)).toEqual([0, 1, 2, 3, 4, 5])
    await time.runUntilSettled(lab.close())
  }, 120_000)
})
