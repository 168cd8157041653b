// The PROCESSED headline and the throughput line: a rate over whole commit intervals, not a
// per-sample figure (docs/measures.md#throughput).
//
// Processed throughput is the advance of the group's committed input offsets (records/s). Offsets
// only move when a task commits, once per commit.interval.ms, while the lab samples every 500 ms:
// per sample, at_least_once with a 1 s commit interval reads 0, 4,000, 0, 4,000... for a steady
// 2,000 records/s, and so does a fixed 2 s window over those samples when it holds one or three
// commits. The lab takes the rate from the commits themselves (committedRate): between commits of
// each partition at least a window apart, so a steady input reads its own rate.
//
// Isomorphic: the lab's timeline computes each point with it; the dashboard shows the points.

import type { ChartPoint } from './lab-protocol.ts'

/** The shortest window, so the headline does not twitch at 100 ms commit intervals. */
export const MIN_RATE_WINDOW_MS = 2_000

/** The window the processed rate is taken over: at least 2 s and at least two commit intervals. */
export function processedWindowMs(commitIntervalMs: number | null | undefined): number {
  const interval = commitIntervalMs && Number.isFinite(commitIntervalMs) && commitIntervalMs > 0 ? commitIntervalMs : 0
  return Math.max(MIN_RATE_WINDOW_MS, 2 * interval)
}

/** "2 s", "1 min": the window as the dashboard names it. */
export function windowLabel(windowMs: number): string {
  if (windowMs < 60_000) return `${Number((windowMs / 1000).toFixed(1))} s`
  const min = windowMs / 60_000
  return `${Number(min.toFixed(1))} min`
}

/** One partition's committed offset from an instant on: a commit, or where the partition stood when watching began. */
export interface CommitStep {
  t: number
  offset: number
}

/**
 * The processed rate at `nowMs` (records/s), from each input partition's commits, sorted by time:
 * committed offsets are a step function that moves once per commit, so a rate read over a fixed
 * stretch of time counts zero, one or two commits of work for one stretch's worth of time (0 or
 * twice the input rate at commit.interval.ms 1000 over 2 s). Instead each partition's rate is taken
 * between commits: from its last step at least `windowMs` before its latest commit (else its
 * first) to that latest commit, over the time between the two, so whole commit intervals only.
 * A partition whose latest commit is older than the window adds 0: nothing was committed in it.
 * The partitions' rates add up to the group's (as commit-window.ts measures a scenario's throughput).
 */
export function committedRate(partitions: Iterable<readonly CommitStep[]>, nowMs: number, windowMs: number): number {
  let perSec = 0
  for (const steps of partitions) {
    let latest = -1
    for (let i = steps.length - 1; i >= 0; i--)
      if (steps[i]!.t <= nowMs) {
        latest = i
        break
      }
    if (latest <= 0 || steps[latest]!.t <= nowMs - windowMs) continue
    const last = steps[latest]!
    let from = 0
    for (let i = latest - 1; i >= 0; i--)
      if (steps[i]!.t <= last.t - windowMs) {
        from = i
        break
      }
    const first = steps[from]!
    if (last.t > first.t) perSec += ((last.offset - first.offset) * 1000) / (last.t - first.t)
  }
  return Math.max(0, Math.round(perSec))
}

/**
 * The headline: the latest point's processed rate, which the lab computes over commits as they
 * happen (committedRate); null without samples. `_windowMs` is the window the lab used, kept for
 * callers that name it.
 */
export function headlineProcessed(series: readonly ChartPoint[], _windowMs?: number): number | null {
  return series.length ? series[series.length - 1]!.processedPerSec : null
}

/**
 * The series for the throughput chart: each point's processed rate is already the lab's rate over
 * whole commit intervals (committedRate), so it is drawn as it is; windowing it again here would
 * average the average.
 */
export function withWindowedProcessed(series: readonly ChartPoint[], _windowMs?: number): ChartPoint[] {
  return [...series]
}
