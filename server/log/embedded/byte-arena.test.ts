import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { ByteArena } from './byte-arena.ts'

describe('ByteArena', () => {
  it('reads back every value it stored, ASCII or not, across growing chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 300 }), { maxLength: 400 }), (values) => {
        const arena = new ByteArena()
        const stored = values.map((v) => {
          const at = arena.write(v)
          return { v, at, len: arena.end - at }
        })
        for (const s of stored) expect(arena.read(s.at, s.len)).toBe(s.v)
      }),
      { numRuns: 200 },
    )
  })

  it('stores a batch of ASCII strings back to back, and nothing when one is not ASCII', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(
            fc.oneof(
              fc.string({ unit: 'grapheme-ascii', maxLength: 200 }),
              fc.string({ unit: 'grapheme', maxLength: 50 }),
            ),
            { maxLength: 300 },
          ),
          { maxLength: 20 },
        ),
        (batches) => {
          const arena = new ByteArena()
          const stored: { v: string; at: number; len: number }[] = []
          for (const batch of batches) {
            const end = arena.end
            const first = arena.writeAscii(batch)
            // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII oracle, control characters included
            const ascii = batch.every((v) => /^[\x00-\x7f]*$/.test(v))
            expect(first >= 0).toBe(ascii)
            if (first < 0) {
              // Nothing stored: the arena ends where it did (or a fresh chunk starts empty).
              expect(arena.end === end || arena.end % (1 << 22) === 0).toBe(true)
              for (const v of batch) {
                const at = arena.write(v)
                stored.push({ v, at, len: arena.end - at })
              }
            } else {
              let at = first
              for (const v of batch) {
                stored.push({ v, at, len: v.length })
                at += v.length
              }
              expect(arena.end).toBe(at)
            }
          }
          for (const s of stored) expect(arena.read(s.at, s.len)).toBe(s.v)
        },
      ),
      { numRuns: 200 },
    )
  })

  const writesLongBatchWhole =
    'writes a batch longer than one encoding group whole, and nothing when a later group holds a non-ASCII value'
  it(writesLongBatchWhole, () => {
    // 1,000 values of 100 units span four groups of at most 32,768 units; one value is longer than a group.
    const batch = Array.from({ length: 1_000 }, (_, i) => `${i}:`.padEnd(100, 'v'))
    batch[500] = 'L'.repeat(40_000)
    const arena = new ByteArena()
    const first = arena.writeAscii(batch)
    expect(first).toBe(0)
    let at = first
    for (const v of batch) {
      expect(arena.read(at, v.length)).toBe(v)
      at += v.length
    }
    expect(arena.end).toBe(at)
    const end = arena.end
    // Two groups (the first alone longer than a group), room for both in the chunk: the second is not ASCII.
    const later = ['M'.repeat(40_000), 'tail \u0141']
    expect(arena.writeAscii(later)).toBe(-1)
    expect(arena.end).toBe(end)
    const next = arena.writeAscii(['after'])
    expect(next).toBe(end)
    expect(arena.read(next, 5)).toBe('after')
  })

  it('refuses a batch larger than a chunk, which is then written one by one', () => {
    const arena = new ByteArena()
    const big = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(100_000, 'x'))
    expect(arena.writeAscii(big)).toBe(-1)
    const at = big.map((v) => arena.write(v))
    expect(arena.read(at[19]!, 100_000)).toBe(big[19])
  })

  it('starts small and releases whole chunks behind a location', () => {
    const arena = new ByteArena()
    arena.write('x')
    expect(arena.retainedBytes()).toBe(1 << 16)
    const locations: number[] = []
    for (let i = 0; i < 20_000; i++) locations.push(arena.write(`value-${i}-${'y'.repeat(40)}`))
    const before = arena.retainedBytes()
    arena.releaseBefore(locations[19_000]!)
    expect(arena.retainedBytes()).toBeLessThan(before)
    expect(arena.read(locations[19_999]!, `value-19999-${'y'.repeat(40)}`.length)).toBe(`value-19999-${'y'.repeat(40)}`)
    expect(() => arena.read(locations[0]!, 5)).toThrow(/released/)
  })
})
