import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeOutputValue, encodeOutputValue, parseInputValue } from './records.ts'

describe('output values', () => {
  it('are the JSON text the validator and the readers expect, field by field', () => {
    expect(
      encodeOutputValue('k0007', { count: 3, sum: -12, min: -9, max: 4 }, { partition: 5, offset: 1_234_567 }),
    ).toBe('{"key":"k0007","count":3,"sum":-12,"min":-9,"max":4,"source":{"partition":5,"offset":1234567}}')
  })

  it('escape any key, and decode to what was encoded', () => {
    const aggregate = fc.record({ count: fc.nat(), sum: fc.integer(), min: fc.integer(), max: fc.integer() })
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), aggregate, fc.nat(), fc.nat(), (key, agg, partition, offset) => {
        const text = encodeOutputValue(key, agg, { partition, offset })
        expect(decodeOutputValue(text)).toEqual({ key, ...agg, source: { partition, offset } })
      }),
    )
  })

  it('escape quotes, backslashes and newlines in the key', () => {
    const text = encodeOutputValue('a"b\\c\nd', { count: 1, sum: 1, min: 1, max: 1 }, { partition: 0, offset: 0 })
    expect(text.startsWith('{"key":"a\\"b\\\\c\\nd","count":1')).toBe(true)
  })
})

describe('input values', () => {
  it('are decimal integers; anything else is a poison record (null)', () => {
    expect(parseInputValue('42')).toBe(42)
    expect(parseInputValue('-7')).toBe(-7)
    for (const bad of [null, '', '-', '4x', '1.5', ' 1', '12345678901234567']) expect(parseInputValue(bad)).toBeNull()
  })
})
