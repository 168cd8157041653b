import { describe, expect, it } from 'vitest'
import {
  FIXTURE_SETTINGS,
  FLIPPED,
  NOISY,
  ORDERED,
  fixtureCells,
  type CellSpec,
} from './__fixtures__/sweep-fixtures.ts'
import { compare, readingGuide, type GuideId } from './reading-guide.ts'

const sentences = (specs: CellSpec[], id: GuideId, figures: 'measured' | 'model' = 'measured') =>
  readingGuide(fixtureCells(specs), FIXTURE_SETTINGS, figures).find((s) => s.id === id)!.sentences

describe('the reading guide, computed from the figures', () => {
  it('says which guarantee is faster, by how much, from intervals that do not overlap', () => {
    const s = sentences(ORDERED, 'throughput')
    expect(s[0]).toBe(
      'At 10 ms, at_least_once is faster than exactly_once (throughput): 100k/s (95%: 95.0k/s–105k/s) ' +
        'against 40.0k/s (95%: 38.0k/s–42.0k/s), ×2.50.',
    )
    expect(s.some((x) => /^exactly_once: throughput grows from 40\.0k\/s .* to 80\.0k\/s .*, ×2\.00\.$/.test(x))).toBe(
      true,
    )
  })

  it("flipping the fixture's order flips the sentence", () => {
    const ordered = sentences(ORDERED, 'throughput')[0]!
    const flipped = sentences(FLIPPED, 'throughput')[0]!
    expect(ordered).toMatch(/^At 10 ms, at_least_once is faster than exactly_once/)
    expect(flipped).toMatch(/^At 10 ms, exactly_once is faster than at_least_once/)
  })

  it('says "not distinguishable" when the intervals overlap', () => {
    const s = sentences(NOISY, 'throughput')
    expect(s[0]).toMatch(
      new RegExp(
        /^At 10 ms, throughput of at_least_once and exactly_once is not distinguishable: /.source +
          /.*\(the 95% intervals overlap\)\.$/.source,
      ),
    )
    expect(sentences(NOISY, 'tradeoff').every((x) => /no gain in throughput is distinguishable/.test(x))).toBe(true)
  })

  it('does not order figures without an interval; orders model figures by their values', () => {
    const few = ORDERED.map((c) => ({ ...c, runs: 3 }))
    expect(sentences(few, 'throughput')[0]).toMatch(
      /too few runs for a 95% interval \(at least 6\), so their order is not known\.$/,
    )
    expect(sentences(few, 'throughput', 'model')[0]).toMatch(/^At 10 ms, at_least_once is faster than exactly_once/)
  })

  it('recovery growth, the trade-off, and duplicates against the expected redone records', () => {
    expect(sentences(ORDERED, 'recovery')[0]).toMatch(
      /^at_least_once: recovery time grows from 1\.00 s .* at 10 ms to 1\.60 s .* at 1000 ms, ×1\.60\.$/,
    )
    expect(sentences(ORDERED, 'tradeoff')[1]).toMatch(
      new RegExp(
        /^exactly_once: from 10 to 1000 ms, throughput ×2\.00 for recovery time ×1\.57: /.source +
          /the longer interval buys throughput with recovery time\.$/.source,
      ),
    )
    const dups = sentences(ORDERED, 'duplicates')
    expect(
      dups.some((x) =>
        /^At 1000 ms, at_least_once: 834 duplicates per kill \(median of 6\); .* redoes about 833 on average/.test(x),
      ),
    ).toBe(true)
    expect(dups).toContain('exactly_once: no duplicates in any run.')
  })

  it('compares two stats: higher, lower, overlapping, unknown', () => {
    const s = (median: number, low: number | null, high: number | null) => ({
      median,
      low,
      high,
      min: low,
      max: high,
      n: 6,
    })
    expect(compare(s(10, 9, 11), s(5, 4, 6), 'measured')).toEqual({ kind: 'higher', ratio: 2 })
    expect(compare(s(5, 4, 6), s(10, 9, 11), 'measured')).toEqual({ kind: 'lower', ratio: 0.5 })
    expect(compare(s(10, 5, 11), s(6, 4, 7), 'measured')).toEqual({ kind: 'not distinguishable' })
    expect(compare(s(10, null, null), s(6, 4, 7), 'measured')).toEqual({ kind: 'unknown' })
  })

  it('reads model figures less than 2% apart as the same, and 2% or more as an order', () => {
    const m = (median: number) => ({ median, min: median, max: median, low: null, high: null, n: 1 })
    // 288 against 287 records/s (×1.003) once read "faster".
    expect(compare(m(288), m(287), 'model').kind).toBe('same')
    expect(compare(m(1003), m(1000), 'model').kind).toBe('same')
    expect(compare(m(1020), m(1000), 'model')).toEqual({ kind: 'higher', ratio: 1.02 })
    expect(compare(m(980), m(1000), 'model').kind).toBe('lower')
  })
})

describe('a model sweep read aloud', () => {
  it('says "the same" with both figures when they are within 2%, never "faster"', () => {
    // A model at 288 and 287 records/s (×1.003) once read "faster".
    const close: CellSpec[] = [
      { guarantee: 'at_least_once', ms: 10, throughput: 288, recovery: 1_000, spread: 0 },
      { guarantee: 'exactly_once', ms: 10, throughput: 287, recovery: 1_000, spread: 0 },
    ]
    const [line] = sentences(close, 'throughput', 'model')
    expect(line).toMatch(
      /^At 10 ms, .* is the same under at_least_once and exactly_once: 288.* and 287.* \(within 2%\)\.$/,
    )
    expect(line).not.toMatch(/faster|slower/)
  })
})
