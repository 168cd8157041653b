// Whether a lab keeps up with an input rate: judged over measurement windows, every one of them.
// Pure, so that bench:clients' verdict is tested against fixtures (bench/keeps-up.test.ts).

export interface KeepsUpWindow {
  /** Input records the load generator fed per second in the window. */
  fedPerSec: number
  /** Input records whose offsets were committed per second in the window. */
  processedPerSec: number
  /** Input not yet committed at the window's end (records), or null when not reported. */
  inputLagRecords: number | null
}

export interface KeepsUpBounds {
  /** The generator fed at least this share of the asked rate. */
  fedRatio: number
  /** Commits advanced by at least this share of what was fed. */
  processedRatio: number
  /** The lag at each window's end held at most this many seconds of input at the asked rate. */
  lagSeconds: number
}

export interface KeepsUpVerdict {
  met: boolean | null
  /** The worst window's figures: the lowest fed and processed ratios, the largest lag in seconds of input. */
  worst: { fedRatio: number; processedRatio: number; lagSeconds: number } | null
  /** Why it was not met, or why it could not be judged. */
  reasons: string[]
  of: string
}

const round3 = (n: number) => Math.round(n * 1000) / 1000

export function keepsUp(askedPerSec: number, windows: readonly KeepsUpWindow[], bounds: KeepsUpBounds): KeepsUpVerdict {
  const of =
    `every window: fed >= ${bounds.fedRatio} x ${askedPerSec}/s asked, committed >= ${bounds.processedRatio} x ` +
    `fed, input lag at its end <= ${bounds.lagSeconds} s of input`
  if (!(askedPerSec > 0)) throw new RangeError(`keepsUp needs a positive asked rate, not ${askedPerSec}`)
  if (windows.length === 0) return { met: null, worst: null, reasons: ['no window was measured'], of }
  const reasons: string[] = []
  let fedRatio = Infinity
  let processedRatio = Infinity
  let lagSeconds = 0
  windows.forEach((w, i) => {
    const fr = w.fedPerSec / askedPerSec
    const pr = w.fedPerSec > 0 ? w.processedPerSec / w.fedPerSec : 0
    fedRatio = Math.min(fedRatio, fr)
    processedRatio = Math.min(processedRatio, pr)
    if (fr < bounds.fedRatio)
      reasons.push(`window ${i + 1}: fed ${w.fedPerSec}/s, under ${bounds.fedRatio} x ${askedPerSec}/s`)
    if (pr < bounds.processedRatio)
      reasons.push(`window ${i + 1}: committed ${w.processedPerSec}/s of ${w.fedPerSec}/s fed`)
    if (w.inputLagRecords === null) {
      reasons.push(`window ${i + 1}: no input lag reported`)
      lagSeconds = Infinity
    } else {
      const s = w.inputLagRecords / askedPerSec
      lagSeconds = Math.max(lagSeconds, s)
      if (s > bounds.lagSeconds)
        reasons.push(`window ${i + 1}: input lag ${w.inputLagRecords} records, over ${bounds.lagSeconds} s of input`)
    }
  })
  return {
    met: reasons.length === 0,
    worst: { fedRatio: round3(fedRatio), processedRatio: round3(processedRatio), lagSeconds: round3(lagSeconds) },
    reasons,
    of,
  }
}
