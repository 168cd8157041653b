// One direction of a connection a network away: every frame is delivered a one-way latency after
// it was sent, plus a jitter drawn from a seeded source, and never before a frame sent earlier (a
// TCP connection keeps its order, so a late frame holds back the frames behind it). The proxy puts
// one in each direction of each connection it carries.

/** A one-way delay: latency, and jitter drawn uniformly from [0, jitterMs), in ms. */
export interface OneWayDelay {
  latencyMs: number
  jitterMs: number
}

export const NO_DELAY: OneWayDelay = Object.freeze({ latencyMs: 0, jitterMs: 0 })

/** What a delay line needs of the clock (the proxy's: Date.now and setTimeout; a test's: a fake one). */
export interface DelayClock {
  now(): number
  schedule(afterMs: number, run: () => void): { cancel(): void }
}

export const SYSTEM_DELAY_CLOCK: DelayClock = {
  now: () => performance.now(),
  schedule(afterMs, run) {
    const t = setTimeout(run, afterMs)
    return { cancel: () => clearTimeout(t) }
  },
}

/** Refuses a delay that is not a finite, non-negative number of ms, naming the setting. */
export function checkOneWayDelay(d: OneWayDelay, what: string): OneWayDelay {
  for (const [name, v] of [
    ['latency', d.latencyMs],
    ['jitter', d.jitterMs],
  ] as const)
    if (!Number.isFinite(v) || v < 0 || v > 10_000)
      throw new RangeError(`${what}: the one-way ${name} must be from 0 to 10000 ms; got ${v}`)
  return d
}

export class DelayLine<T> {
  private readonly queue: { dueMs: number; item: T }[] = []
  private lastDueMs = Number.NEGATIVE_INFINITY
  private timer: { cancel(): void } | null = null
  private closed = false

  constructor(
    private readonly delay: OneWayDelay,
    private readonly random: () => number,
    private readonly deliver: (item: T) => void,
    private readonly clock: DelayClock = SYSTEM_DELAY_CLOCK,
  ) {}

  /** Frames sent and not yet delivered. */
  get inFlight(): number {
    return this.queue.length
  }

  /** Sends an item: delivered at once without a delay, else when its time comes, in order. */
  send(item: T): void {
    if (this.closed) return
    if (this.delay.latencyMs === 0 && this.delay.jitterMs === 0 && this.queue.length === 0) {
      this.deliver(item)
      return
    }
    const jitter = this.delay.jitterMs > 0 ? this.random() * this.delay.jitterMs : 0
    const dueMs = Math.max(this.clock.now() + this.delay.latencyMs + jitter, this.lastDueMs)
    this.lastDueMs = dueMs
    this.queue.push({ dueMs, item })
    if (this.timer === null) this.arm()
  }

  /** Drops what is in flight: the connection is gone. */
  close(): void {
    this.closed = true
    this.queue.length = 0
    this.timer?.cancel()
    this.timer = null
  }

  private arm(): void {
    const head = this.queue[0]
    if (head === undefined) return
    this.timer = this.clock.schedule(Math.max(0, head.dueMs - this.clock.now()), () => this.flush())
  }

  private flush(): void {
    this.timer = null
    const now = this.clock.now()
    while (!this.closed && this.queue.length > 0 && this.queue[0]!.dueMs <= now) this.deliver(this.queue.shift()!.item)
    if (!this.closed) this.arm()
  }
}
