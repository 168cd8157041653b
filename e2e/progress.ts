// Waiting on progress, not on the wall clock. A test that waits for something (records committed,
// a state reached, a message received) polls for it and fails only when the figure it watches
// stops moving for a stall period, or past a long overall bound: on a busy machine a run is slower,
// never stuck, and a stuck one is told apart from a slow one by the figure it reports.

/** How long a wait may take (wall-clock, ms) and how often it looks. */
export interface WaitBounds {
  /** The overall bound: generous, the wait fails past it even if progress is still being made. */
  boundMs?: number
  /** How often the condition is read. */
  everyMs?: number
}

const DEFAULT_BOUND_MS = 600_000
const DEFAULT_EVERY_MS = 100

const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** Waits until `cond` holds, failing past `boundMs` (default 10 minutes). For states that are reached, not counted. */
export async function waitFor(cond: () => boolean | Promise<boolean>, what: string, o: WaitBounds = {}): Promise<void> {
  const boundMs = o.boundMs ?? DEFAULT_BOUND_MS
  const deadline = Date.now() + boundMs
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${boundMs} ms`)
    await pause(o.everyMs ?? DEFAULT_EVERY_MS)
  }
}

export interface ProgressWait<T> extends WaitBounds {
  /** What is awaited, for the error. */
  what: string
  /** Reads the watched figure (a count, or any value whose change is progress). */
  read: () => T | Promise<T>
  /** True once the awaited figure is reached. */
  done: (value: T) => boolean
  /** How long the figure may stay unchanged before the wait fails. */
  stallMs: number
}

/**
 * Waits until `done(read())`, failing only when the value read has not changed for `stallMs`, or
 * past `boundMs` (default 10 minutes). Returns the value that satisfied `done`.
 */
export async function untilProgress<T>(o: ProgressWait<T>): Promise<T> {
  const boundMs = o.boundMs ?? DEFAULT_BOUND_MS
  const started = Date.now()
  let last = JSON.stringify(await o.read())
  let movedAt = started
  for (;;) {
    const value = await o.read()
    if (o.done(value)) return value
    const now = Date.now()
    const seen = JSON.stringify(value)
    if (seen !== last) {
      last = seen
      movedAt = now
    }
    if (now - movedAt > o.stallMs) throw new Error(`${o.what}: no progress for ${o.stallMs} ms (stuck at ${seen})`)
    if (now - started > boundMs) throw new Error(`${o.what}: not within ${boundMs} ms (last at ${seen}, still moving)`)
    await pause(o.everyMs ?? DEFAULT_EVERY_MS)
  }
}

/**
 * Runs `work`, which calls `progressed()` each time it moves on (a fault applied, a line printed, a
 * cell measured); fails when it goes `stallMs` without progress or past `boundMs` (default 10
 * minutes). `onStall` may stop the work (kill a child process).
 */
export async function watchProgress<T>(
  what: string,
  o: { stallMs: number; boundMs?: number; onStall?: () => void },
  work: (progressed: () => void) => Promise<T>,
): Promise<T> {
  const boundMs = o.boundMs ?? DEFAULT_BOUND_MS
  const started = Date.now()
  let movedAt = started
  let timer: ReturnType<typeof setInterval> | undefined
  const stalled = new Promise<never>((_, reject) => {
    timer = setInterval(
      () => {
        const now = Date.now()
        const why =
          now - movedAt > o.stallMs
            ? `no progress for ${o.stallMs} ms`
            : now - started > boundMs
              ? `not within ${boundMs} ms (still moving)`
              : null
        if (!why) return
        clearInterval(timer)
        o.onStall?.()
        reject(new Error(`${what}: ${why}`))
      },
      Math.min(1_000, o.stallMs / 4),
    )
  })
  try {
    return await Promise.race([work(() => (movedAt = Date.now())), stalled])
  } finally {
    clearInterval(timer)
  }
}
