// Past frames of the lab: one snapshot a second, as the dashboard was shown it, so that every panel
// can be rewound to one moment (GET /api/lab/at?t=MS). A frame is the wire copy of the snapshot
// (lib/live-delta.ts wireCopy) as JSON, deflated (raw). Kept: every frame of the last 10 minutes,
// one per 10 s up to 30 minutes, then one per minute back to the journal's start, under a hard
// byte cap that drops the oldest first.
//
// Measured on a running lab (embedded log, 3 workers, 6 partitions, 500 records/s, exactly_once):
// a frame is about 49 KB of JSON and 6.1 KB deflated after 15 s (frame-store.test.ts), 7.7 KB once
// the transaction list and traces are full; over a 34-minute run the store held 600 frames (4.6 MB)
// at 10 minutes and 726 frames (6.5 MB) at 34, then adds one frame (about 9 KB) a minute, so the
// 24 MB cap is reached after about a day and a half.
//
// A kept frame's deflated bytes live in a JS string (one byte a character), not a Buffer: thinning
// drops frames at random, and 7 KB Buffers freed at random leave holes in the C heap that malloc
// keeps resident, where the garbage collector compacts strings.

import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { wireCopy } from '../../../lib/live-delta.ts'

export interface FrameBounds {
  everyMs: number
  /** Every frame younger than this is kept. */
  fullMs: number
  /** Up to this age, one frame per mediumEveryMs. */
  mediumMs: number
  mediumEveryMs: number
  /** Older frames: one per sparseEveryMs. */
  sparseEveryMs: number
  maxBytes: number
}

export const FRAME_BOUNDS: FrameBounds = {
  everyMs: 1_000,
  fullMs: 10 * 60_000,
  mediumMs: 30 * 60_000,
  mediumEveryMs: 10_000,
  sparseEveryMs: 60_000,
  maxBytes: 24 * 1024 * 1024,
}

interface Frame {
  atMs: number
  /** The deflated frame, a byte a character (latin1). */
  bytes: string
}

export class FrameStore<S> {
  private frames: Frame[] = []
  private bytes = 0
  private thinnedAtMs = 0

  constructor(private readonly bounds: FrameBounds = FRAME_BOUNDS) {}

  /** Takes a frame of this snapshot when the last one is at least everyMs old; `oldestMs`: the journal's start. */
  offer(atMs: number, snapshot: S, oldestMs: number): boolean {
    const last = this.frames.at(-1)
    if (last !== undefined && atMs - last.atMs < this.bounds.everyMs) return false
    const bytes = deflateRawSync(JSON.stringify(wireCopy(snapshot))).toString('latin1')
    this.frames.push({ atMs, bytes })
    this.bytes += bytes.length
    if (atMs - this.thinnedAtMs >= this.bounds.mediumEveryMs) {
      this.thinnedAtMs = atMs
      this.thin(atMs, oldestMs)
    }
    while (this.bytes > this.bounds.maxBytes && this.frames.length > 1) this.bytes -= this.frames.shift()!.bytes.length
    return true
  }

  /** Keeps every frame of the last fullMs, then one a bucket (the first of each), none before oldestMs. */
  private thin(nowMs: number, oldestMs: number): void {
    const b = this.bounds
    const kept: Frame[] = []
    let lastBucket = Number.NaN
    for (const f of this.frames) {
      const age = nowMs - f.atMs
      if (f.atMs < oldestMs && age > b.fullMs) continue
      if (age <= b.fullMs) {
        kept.push(f)
        continue
      }
      const every = age <= b.mediumMs ? b.mediumEveryMs : b.sparseEveryMs
      const bucket = every * Math.floor(f.atMs / every)
      if (bucket === lastBucket) continue
      lastBucket = bucket
      kept.push(f)
    }
    this.frames = kept
    this.bytes = kept.reduce((n, f) => n + f.bytes.length, 0)
  }

  /** The frame taken at or just after t, else the latest before it; null when none lies within maxGapMs. */
  frameAt(t: number, maxGapMs: number): { frameAtMs: number; snapshot: S } | null {
    let lo = 0
    let hi = this.frames.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.frames[mid]!.atMs < t) lo = mid + 1
      else hi = mid
    }
    const after = this.frames[lo]
    const before = this.frames[lo - 1]
    const f =
      after !== undefined && after.atMs - t <= maxGapMs
        ? after
        : before !== undefined && t - before.atMs <= maxGapMs
          ? before
          : null
    if (f === null) return null
    return {
      frameAtMs: f.atMs,
      snapshot: JSON.parse(inflateRawSync(Buffer.from(f.bytes, 'latin1')).toString('utf8')) as S,
    }
  }

  stats(): { frames: number; bytes: number; fromMs: number | null; toMs: number | null } {
    return {
      frames: this.frames.length,
      bytes: this.bytes,
      fromMs: this.frames[0]?.atMs ?? null,
      toMs: this.frames.at(-1)?.atMs ?? null,
    }
  }
}
