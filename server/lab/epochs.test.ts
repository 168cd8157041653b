// One producer's epoch on one screen (issue 34: worker card "epoch 188", lane "e182", coordinator
// "1001 / 172"). On the embedded log the epoch goes up at every EndTxn (KIP-890), ten times a
// second at commit.interval.ms 100, and each place read it from its own source at its own moment:
// the worker's status (every 100 ms), the latest transaction's begin, the coordinator's last read.
// The worker card shows the producer's current epoch, the latest any source knows; the lane is
// labelled with what it shows (the epoch its latest transaction began with), the coordinator row
// with its read.

import { describe, expect, it } from 'vitest'
import { toLanes } from '../../components/transactions-panel.tsx'
import { MockTime } from '../log/time.ts'
import { Lab } from './lab.ts'
import { inProcessRuntimes } from '../runtime/runtime-factory.ts'

describe("a producer's epoch", () => {
  const workerCardNeverBehind =
    'on the worker card is never behind its lane or its coordinator; a zombie keeps the epoch it was fenced at'
  it(workerCardNeverBehind, async () => {
    const time = new MockTime()
    const lab = new Lab(inProcessRuntimes({ time, workers: 2, partitions: 4, seed: 7 }), {
      ratePerSec: 400,
      snapshotIntervalMs: 100,
    })
    await time.runUntilSettled(lab.start())
    let compared = 0
    const check = () => {
      const s = lab.snapshot()
      const lanes = toLanes(s.transactions)
      for (const w of s.workers.filter((x) => x.state === 'running'))
        for (const p of w.producers) {
          const lane = lanes.find((l) => l.transactionalId === p.transactionalId && l.producerId === p.producerId)
          const coordinator = s.transactionsView?.coordinators.find(
            (c) => c.transactionalId === p.transactionalId && c.producerId === p.producerId,
          )
          if (lane) expect(p.epoch, `${p.transactionalId} card against lane`).toBeGreaterThanOrEqual(lane.epoch)
          if (coordinator)
            expect(p.epoch, `${p.transactionalId} card against coordinator`).toBeGreaterThanOrEqual(coordinator.epoch)
          if (lane && coordinator) compared++
        }
    }
    for (let i = 0; i < 40; i++) {
      await time.runFor(137)
      check()
    }
    expect(compared).toBeGreaterThan(100)

    const zombie = lab.snapshot().workers.find((w) => w.producers.length > 0)!
    expect(await time.runUntilSettled(lab.execute('pauseWorker', { workerId: zombie.id }))).toEqual({ ok: true })
    const fencedAt = lab.snapshot().workers.find((w) => w.id === zombie.id)!.producers
    await time.runFor(20_000)
    const later = lab.snapshot()
    // Its tasks moved on: their producers' epochs went up under the new owner, not on the zombie's card.
    const paused = later.workers.find((w) => w.id === zombie.id)!
    for (const p of paused.producers) expect(p.epoch).toBe(fencedAt.find((f) => f.producerId === p.producerId)!.epoch)
    const owners = later.workers.filter((w) => w.id !== zombie.id).flatMap((w) => w.producers)
    for (const p of fencedAt) {
      const now = owners.find((o) => o.transactionalId === p.transactionalId)
      if (now) expect(now.epoch).toBeGreaterThan(p.epoch)
    }
    for (let i = 0; i < 10; i++) {
      await time.runFor(137)
      check()
    }
    await time.runUntilSettled(lab.close())
  })
})
