// The Group view's data on Kafka, without a browser: the lab's snapshot shows the group as the
// broker's coordinator describes it (DescribeGroups), one member per worker process, with the
// generation the members report; a SIGKILL moves it to a later generation without the dead
// member, its partitions on the others.

import { afterAll, describe, expect, inject, it } from 'vitest'
import type { LabSnapshot } from '../../lib/lab-protocol.ts'
import { createKafkaLab } from '../../server/lab/kafka-lab.ts'
import type { Lab } from '../../server/lab/lab.ts'
import { KAFKA_GROUP_TIMEOUTS } from '../../server/log/kafka/capabilities.ts'
import { waitFor } from '../progress.ts'

const brokers = inject('kafkaBrokers')
/** States reached after a kill (detected, partitions moved): a few session timeouts, generous for a busy machine. */
const STATE_MS = 6 * KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs + 30_000

const running = (s: LabSnapshot) => s.workers.filter((w) => w.state === 'running' && w.memberId !== null)

/** Stable, one member per running worker, the generation known. */
function membersAreWorkers(s: LabSnapshot): boolean {
  const g = s.group
  const ws = running(s)
  return (
    g !== undefined &&
    g.state === 'Stable' &&
    g.generationId !== null &&
    ws.length > 0 &&
    g.members.length === ws.length &&
    ws.every((w) => g.members.some((m) => m.workerId === w.id && m.memberId === w.memberId))
  )
}

describe('the group view on Kafka', () => {
  let lab: Lab | null = null
  let sampler: ReturnType<typeof setInterval> | undefined
  afterAll(async () => {
    clearInterval(sampler)
    await lab?.close()
  })

  it('shows one member per worker process in generation N, and N+1 or later without a killed one', {
    timeout: 600_000,
  }, async () => {
    if (!brokers) throw new Error('no Kafka broker: run these tests with npm run test:kafka')
    lab = await createKafkaLab({
      client: { brokers: brokers.split(','), clientId: 'eoscope-group-test' },
      workers: 2,
      partitions: 4,
      ratePerSec: 200,
      applicationIdPrefix: 'eoscope-group',
      validateIntervalMs: 2_000,
    })
    const l = lab
    // Every snapshot's newest lag point, five times a second through the test: the committed offset
    // is never above the end offset it is shown with (they are read at one moment).
    const seen = { points: 0, above: [] as string[] }
    sampler = setInterval(() => {
      for (const s of l.snapshot().group?.lag ?? []) {
        const p = s.points.at(-1)
        if (!p || p.committed === null) continue
        seen.points++
        if (p.committed > p.end)
          seen.above.push(`p${s.partition} at ${p.atMs}: committed ${p.committed} > end ${p.end}`)
      }
    }, 200)
    await waitFor(() => membersAreWorkers(l.snapshot()), 'the group Stable with one member per running worker', {
      boundMs: STATE_MS,
    })
    const before = l.snapshot().group!
    expect(before).toMatchObject({
      groupId: l.snapshot().applicationId,
      generationSource: 'members',
      protocolType: 'consumer',
    })
    expect(before.members.flatMap((m) => m.partitions).sort()).toEqual([0, 1, 2, 3])
    for (const m of before.members) expect(m.host).toBeTruthy()
    const n = before.generationId!
    const victim = before.members[0]!
    expect(await l.execute('killWorker', { workerId: victim.workerId! })).toEqual({ ok: true })
    const later = () =>
      l
        .snapshot()
        .group!.generations.find(
          (g) =>
            g.generationId !== null && g.generationId > n && !g.members.some((m) => m.memberId === victim.memberId),
        )
    await waitFor(() => later() !== undefined, `a generation after ${n} without ${victim.memberId}`, {
      boundMs: STATE_MS,
    })
    expect(
      later()!
        .members.flatMap((m) => m.partitions)
        .sort(),
    ).toEqual([0, 1, 2, 3])
    const ended = l
      .snapshot()
      .group!.generations.find((g) => g.endedBy?.gone.some((x) => x.memberId === victim.memberId))
    expect(
      ended,
      JSON.stringify(
        l
          .snapshot()
          .group!.generations.map((g) => [
            g.generationId,
            g.members.map((m) => [m.memberId, m.workerId, m.partitions]),
            g.endedBy,
          ]),
      ),
    ).toBeDefined()
    expect(ended!.endedBy!.gone).toContainEqual({ memberId: victim.memberId, workerId: victim.workerId, how: 'killed' })
    // The committed offsets move, and lag is HW − committed at every sample, never below 0.
    clearInterval(sampler)
    expect(seen.above).toEqual([])
    expect(seen.points).toBeGreaterThan(20)
    for (const s of l.snapshot().group!.lag)
      for (const p of s.points) {
        if (p.committed === null) continue
        expect(p.committed).toBeLessThanOrEqual(p.end)
        expect(p.lag).toBe(p.end - p.committed)
      }
  })
})
