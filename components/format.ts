// Number and time formatting for the dashboard: fixed-width friendly, "—" for unavailable figures.

export const UNAVAILABLE = '—'

/**
 * One formatter for whole numbers, made once: `toLocaleString` builds a new Intl.NumberFormat on
 * every call, and the dashboard formats hundreds of figures per frame (it was the page's costliest
 * function, about a tenth of the main thread on the overview).
 */
const WHOLE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

export function fmtInt(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return UNAVAILABLE
  return WHOLE.format(Math.round(n))
}

/** Compact counts: 950, 12.3k, 4.56M. */
export function fmtCompact(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return UNAVAILABLE
  const a = Math.abs(n)
  if (a < 10_000) return fmtInt(n)
  if (a < 1_000_000) return `${(n / 1000).toFixed(a < 100_000 ? 1 : 0)}k`
  return `${(n / 1_000_000).toFixed(2)}M`
}

export function fmtRate(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return UNAVAILABLE
  return `${fmtCompact(n)}/s`
}

/** Durations: 850 ms, 1.25 s, 2 min 5 s. */
export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return UNAVAILABLE
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
  const min = Math.floor(ms / 60_000)
  return `${min} min ${Math.round((ms - min * 60_000) / 1000)} s`
}

/** Seconds since the lab started, for chart axes and tables: "12.3 s". */
export function fmtSince(t: number, startedAtMs: number): string {
  return `${((t - startedAtMs) / 1000).toFixed(1)} s`
}
