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
