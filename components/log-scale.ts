// A logarithmic slider scale (commit.interval.ms: 10 ms .. 30 s).

export interface LogScale {
  min: number
  max: number
  /** Slider steps from 0 to `steps`. */
  steps: number
}

export const COMMIT_INTERVAL_SCALE: LogScale = { min: 10, max: 30_000, steps: 1000 }

export function toPosition(scale: LogScale, value: number): number {
  const v = Math.min(scale.max, Math.max(scale.min, value))
  return Math.round((Math.log(v / scale.min) / Math.log(scale.max / scale.min)) * scale.steps)
}

/** The value at a slider position, rounded to two significant digits (10, 11, ..., 150, 1500, 30000). */
export function fromPosition(scale: LogScale, position: number): number {
  const p = Math.min(scale.steps, Math.max(0, position)) / scale.steps
  const raw = scale.min * (scale.max / scale.min) ** p
  const magnitude = 10 ** (Math.floor(Math.log10(raw)) - 1)
  return Math.min(scale.max, Math.max(scale.min, Math.round(raw / magnitude) * magnitude))
}

/** Where a value sits along the track, in percent (for tick marks). */
export function toPercent(scale: LogScale, value: number): number {
  return (toPosition(scale, value) / scale.steps) * 100
}
