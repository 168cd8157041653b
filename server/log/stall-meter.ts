// When this process was frozen: the embedded cluster and all its members live in one process, so
// while it runs nothing at all (a long synchronous stretch, a GC pause, the OS giving its CPU to
// other jobs on a busy machine) no member can send a heartbeat, and the coordinator, once it runs
// again, would expel every member at once for silence none of them caused. On separate machines a
// stalled member is expelled and the others are not; here the stall is the whole cluster's. The
// group coordinator therefore leaves such stalls out of a member's silence (GroupCoordinator's
// frozenSince), on the system clock only: virtual time has no stalls.
//
// A timer ticks every TICK_MS; a gap between two observations longer than STALL_MS is a stall
// (less the tick itself). Observations are also taken when asked, so the first caller after a
// stall sees it even if the ticker has not run yet. One meter per process: stalls are the process's.

/** How often the meter looks (ms). */
export const TICK_MS = 50
/** A gap between observations longer than this (ms) is a stall of the process. */
export const STALL_MS = 200
/** Stalls older than this (ms) are forgotten: no session timeout is that long. */
const KEEP_MS = 15 * 60_000

export class StallMeter {
  private last: number
  private readonly stalls: { from: number; to: number }[] = []
  private timer: ReturnType<typeof setInterval> | null = null

  constructor(private readonly clock: () => number) {
    this.last = clock()
  }

  /** Starts the ticker (unref'd: it never keeps the process alive). */
  start(): this {
    if (!this.timer) {
      this.last = this.clock()
      this.timer = setInterval(() => this.observe(), TICK_MS)
      this.timer.unref?.()
    }
    return this
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  /** Notes the time now; a gap since the last observation longer than STALL_MS is a stall. */
  observe(): void {
    const now = this.clock()
    if (now - this.last > STALL_MS) {
      this.stalls.push({ from: this.last + TICK_MS, to: now })
      while (this.stalls.length > 0 && this.stalls[0]!.to < now - KEEP_MS) this.stalls.shift()
    }
    this.last = now
  }

  /** Milliseconds of the clock since `fromMs` during which the process was stalled. */
  frozenSince(fromMs: number): number {
    this.observe()
    let frozen = 0
    for (const s of this.stalls) {
      const from = Math.max(s.from, fromMs)
      if (s.to > from) frozen += s.to - from
    }
    return frozen
  }
}

let processMeter: StallMeter | null = null

/** The process's meter on the system clock, started on first use. */
export function processStallMeter(clock: () => number): StallMeter {
  processMeter ??= new StallMeter(clock).start()
  return processMeter
}
