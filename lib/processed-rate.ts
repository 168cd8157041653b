// The PROCESSED headline and the throughput line: a rate over a window, not a per-sample figure.
//
// Processed throughput is the advance of the group's committed input offsets (records/s). Offsets
// only move when a task commits, once per commit.interval.ms, while the lab samples every 500 ms:
// per sample, at_least_once with a 1 s commit interval reads 0, 4,000, 0, 4,000... for a steady
// 2,000 records/s. Over a window of at least two commit intervals every window holds a commit, so
// the rate only reads 0 when nothing was committed for that long.
//
// Isomorphic: used by the dashboard (headline and chart) and by its tests.

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

/** The usual gap between samples (the median), for the first point, whose own gap is unknown. */
function typicalGapMs(series: readonly ChartPoint[]): number {
  const gaps: number[] = []
  for (let i = 1; i < series.length; i++) gaps.push(series[i]!.t - series[i - 1]!.t)
  if (!gaps.length) return 500
  gaps.sort((a, b) => a - b)
  return Math.max(1, gaps[Math.floor(gaps.length / 2)]!)
}

/**
 * The processed rate at every point, over the `windowMs` before it: the records by which committed
 * offsets advanced in that window, divided by the window's length (or by the part of it the series
 * covers, at the start). Each sample's `processedPerSec` covers the gap since the sample before.
 */
export function windowedProcessed(series: readonly ChartPoint[], windowMs: number): number[] {
  const gapOf = (i: number) => (i > 0 ? series[i]!.t - series[i - 1]!.t : typicalGapMs(series))
  const records = series.map((p, i) => (p.processedPerSec * gapOf(i)) / 1000)
  const out: number[] = []
  let from = 0
  let sum = 0
  for (let i = 0; i < series.length; i++) {
    sum += records[i]!
    // Drop the samples whose whole gap lies before the window (t_i − gap_i ≥ t_now − window keeps a sample).
    while (from < i && series[from]!.t <= series[i]!.t - windowMs) sum -= records[from++]!
    const covered = series[i]!.t - series[from]!.t + gapOf(from)
    out.push(Math.max(0, Math.round((sum * 1000) / Math.max(1, Math.min(windowMs, covered)))))
  }
  return out
}

/** The headline: the processed rate over the window ending at the last sample; null without samples. */
export function headlineProcessed(series: readonly ChartPoint[], windowMs: number): number | null {
  if (!series.length) return null
  const tail = series.filter((p) => p.t > series[series.length - 1]!.t - windowMs - typicalGapMs(series))
  return windowedProcessed(tail, windowMs).at(-1) ?? null
}

/** The series with processedPerSec replaced by the windowed rate, for the throughput chart. */
export function withWindowedProcessed(series: readonly ChartPoint[], windowMs: number): ChartPoint[] {
  const rates = windowedProcessed(series, windowMs)
  return series.map((p, i) => ({ ...p, processedPerSec: rates[i]! }))
}
