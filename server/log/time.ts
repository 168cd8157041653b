// Injected time. Everything below the lab asks a Time for the clock and for sleeps,
// so tests can drive it with MockTime and runs stay deterministic.

import { processStallMeter } from './stall-meter.ts'

export interface Time {
  now(): number
  /** Resolves after ms of this clock's time. */
  sleep(ms: number): Promise<void>
  /** Lets other ready work run (a macrotask turn), without advancing the clock. */
  yield(): Promise<void>
  /**
   * Milliseconds since `fromMs` during which this process ran nothing (stall-meter.ts): no member
   * of an in-process cluster could act then. Absent on a clock without stalls (virtual time).
   */
  frozenSince?(fromMs: number): number
}

const realYield = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

const systemNow = () => performance.timeOrigin + performance.now()

export class SystemTime implements Time {
  constructor() {
    // Watching from the start: a stall before the first question must count too.
    processStallMeter(systemNow)
  }
  now(): number {
    return systemNow()
  }
  frozenSince(fromMs: number): number {
    return processStallMeter(systemNow).frozenSince(fromMs)
  }
  sleep(ms: number): Promise<void> {
    return ms <= 0 ? realYield() : new Promise((resolve) => setTimeout(resolve, ms))
  }
  yield(): Promise<void> {
    return realYield()
  }
}

interface Timer {
  at: number
  seq: number
  resolve: () => void
}

/**
 * A virtual clock. Sleeps wait until the clock is advanced past them; `runFor` advances it
 * from timer to timer, letting all ready work settle in between, so a simulated second of a
 * lab takes as long as its computation does, and the interleaving is the same on every run.
 */
export class MockTime implements Time {
  private current: number
  private seq = 0
  private timers: Timer[] = []

  constructor(startMs = 1_700_000_000_000) {
    this.current = startMs
  }
  now(): number {
    return this.current
  }
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.timers.push({ at: this.current + Math.max(0, ms), seq: this.seq++, resolve })
    })
  }
  yield(): Promise<void> {
    return realYield()
  }
  pendingTimers(): number {
    return this.timers.length
  }
  /** Lets every ready task run until nothing more is ready without the clock moving. */
  async settle(turns = 3): Promise<void> {
    for (let i = 0; i < turns; i++) await realYield()
  }
  /** Advances the clock by ms, firing due timers in time order and settling after each. */
  async runFor(ms: number): Promise<void> {
    const end = this.current + ms
    await this.settle()
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq)
      const next = this.timers[0]
      if (!next || next.at > end) break
      this.timers.shift()
      if (next.at > this.current) this.current = next.at
      next.resolve()
      await this.settle()
    }
    this.current = end
    await this.settle()
  }
  /** Advances the clock until the promise settles (or throws after maxMs of virtual time); returns it. */
  async runUntilSettled<T>(p: Promise<T>, maxMs = 60_000, stepMs = 20): Promise<T> {
    let settled = false
    const tracked = p.finally(() => {
      settled = true
    })
    // A rejection is the caller's to handle once this returns it, not an unhandled one meanwhile.
    tracked.catch(() => {})
    await this.runUntil(() => settled, maxMs, stepMs)
    return tracked
  }
  /** Runs until predicate holds, or throws after maxMs of virtual time. */
  async runUntil(predicate: () => boolean, maxMs: number, stepMs = 10): Promise<void> {
    const deadline = this.current + maxMs
    while (!predicate()) {
      if (this.current >= deadline) throw new Error(`condition not reached within ${maxMs} ms of virtual time`)
      await this.runFor(stepMs)
    }
  }
}

/** A seeded pseudo-random generator (mulberry32): the only randomness below the lab. */
export class SeededRandom {
  private state: number
  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  int(minInclusive: number, maxExclusive: number): number {
    return minInclusive + Math.floor(this.next() * (maxExclusive - minInclusive))
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list')
    return items[this.int(0, items.length)]!
  }
}
