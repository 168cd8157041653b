// Past frames: one a second, thinned with age (every frame for 10 minutes, one per 10 s up to 30,
// one a minute after), under a byte cap; frameAt answers the frame at or just after t. And the size
// of a real lab's frame (embedded log, virtual clock, 500 records/s).

import { deflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { wireCopy } from '../../../lib/live-delta.ts'
import { MockTime } from '../../log/time.ts'
import { Lab } from '../lab.ts'
import { inProcessRuntimes } from '../../runtime/runtime-factory.ts'
import { FRAME_BOUNDS, FrameStore } from './frame-store.ts'

describe('FrameStore', () => {
  it('gives back exactly the snapshot it took, text of any script included, and counts its deflated bytes', () => {
    const store = new FrameStore<{ note: string; n: number[] }>()
    const snapshot = { note: 'pause ⏸ à 01:04 — 仮想 🚀', n: Array.from({ length: 500 }, (_, i) => (i * 7919) % 1013) }
    store.offer(1_000, snapshot, 0)
    expect(store.frameAt(1_000, 0)).toEqual({ frameAtMs: 1_000, snapshot })
    expect(store.stats().bytes).toBe(deflateRawSync(JSON.stringify(wireCopy(snapshot))).length)
  })

  it('keeps 1/s for 10 minutes, 1 per 10 s to 30 minutes, 1 a minute after, none before the journal', () => {
    const store = new FrameStore<{ atMs: number }>()
    const t0 = 1_000_000_000
    for (let t = t0; t <= t0 + 3_600_000; t += 1_000) store.offer(t, { atMs: t }, t0 + 60_000)
    const now = t0 + 3_600_000
    const s = store.stats()
    // 600 + 120 + 30 minutes a minute (less the journal's first minute), give or take a bucket edge.
    expect(s.frames).toBeGreaterThan(600 + 120 + 25)
    expect(s.frames).toBeLessThan(600 + 120 + 32)
    expect(s.fromMs).toBeGreaterThanOrEqual(t0 + 60_000)
    // At or just after t: within the last 10 minutes, the frame of that very second.
    expect(store.frameAt(now - 65_500, FRAME_BOUNDS.sparseEveryMs)).toEqual({
      frameAtMs: now - 65_000,
      snapshot: { atMs: now - 65_000 },
    })
    // Older: the next frame kept (one per 10 s).
    const mid = store.frameAt(now - 20 * 60_000 + 1, 60_000)!
    expect(mid.frameAtMs).toBeGreaterThan(now - 20 * 60_000)
    expect(mid.frameAtMs - (now - 20 * 60_000)).toBeLessThanOrEqual(10_000)
    // After the last frame: the last one, if near; nothing kept far away.
    expect(store.frameAt(now + 500, 60_000)?.frameAtMs).toBe(now)
    expect(store.frameAt(now + 10 * 60_000, 60_000)).toBeNull()
    expect(store.frameAt(t0 - 10 * 60_000, 60_000)).toBeNull()
  })

  it('takes at most one frame a second and drops the oldest past its byte cap', () => {
    const store = new FrameStore<{ fill: string }>({ ...FRAME_BOUNDS, maxBytes: 20_000 })
    expect(store.offer(0, { fill: 'x' }, 0)).toBe(true)
    expect(store.offer(500, { fill: 'x' }, 0)).toBe(false)
    // Incompressible frames of about 1 KB each.
    for (let t = 1_000; t <= 100_000; t += 1_000)
      store.offer(
        t,
        {
          fill:
            Math.random().toString(36).repeat(1).padEnd(8, '0') +
            [...Array(120)].map(() => Math.random().toString(36).slice(2, 10)).join(''),
        },
        0,
      )
    const s = store.stats()
    expect(s.bytes).toBeLessThanOrEqual(20_000)
    expect(s.toMs).toBe(100_000)
    expect(s.frames).toBeLessThan(30)
  })

  it("holds a real lab's frames at a few KB each", async () => {
    const time = new MockTime()
    const lab = new Lab(inProcessRuntimes({ time, workers: 3, partitions: 6, seed: 5 }), {
      ratePerSec: 500,
      snapshotIntervalMs: 100,
      validateIntervalMs: 500,
    })
    await time.runUntilSettled(lab.start())
    await time.runFor(15_000)
    const s = lab.snapshot()
    const json = JSON.stringify(wireCopy(s)).length
    const deflated = deflateRawSync(Buffer.from(JSON.stringify(wireCopy(s)))).length
    process.stdout.write(`a frame: ${json} bytes of JSON, ${deflated} deflated\n`)
    expect(deflated).toBeLessThan(16_000)
    const frame = lab.frameAt(s.atMs - 5_000)!
    expect(Math.abs(frame.frameAtMs - (s.atMs - 5_000))).toBeLessThanOrEqual(1_000)
    expect(frame.snapshot.atMs).toBe(frame.frameAtMs)
    await time.runUntilSettled(lab.close())
  }, 60_000)
})
