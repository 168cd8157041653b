import { describe, expect, it } from 'vitest'
import { orNone } from './kafka-none.ts'
import { programText } from './program-text.ts'

describe("Kafka's -1 as a word", () => {
  it('reads "none" for -1 and the number otherwise', () => {
    expect(orNone(-1)).toBe('none')
    expect(orNone(0)).toBe('0')
    expect(orNone(1005)).toBe('1005')
    expect(programText(`producer ${orNone(-1)} · epoch 0 · sequence ${orNone(-1)}`)).toEqual([])
  })
})
