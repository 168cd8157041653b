import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Float64Slots, SlotArray } from './slot-array.ts'

describe('SlotArray', () => {
  it('holds what a plain array would, across chunk boundaries and front drops of any size', () => {
    // Appends and front drops against a plain array as the model; sizes cross the 4096-slot chunks.
    const op = fc.oneof(fc.record({ append: fc.integer({ min: 1, max: 9_000 }) }), fc.record({ drop: fc.integer({ min: 0, max: 9_000 }) }))
    fc.assert(
      fc.property(fc.array(op, { maxLength: 8 }), (ops) => {
        const model: (string | null)[] = []
        const slots = new SlotArray<string | null>()
        let next = 0
        for (const o of ops) {
          if ('append' in o) {
            for (let k = 0; k < o.append; k++, next++) {
              const v = next % 7 === 0 ? null : `v${next}`
              slots.set(model.length, v)
              model.push(v)
            }
          } else {
            const count = Math.min(o.drop, model.length)
            slots.dropFront(count, model.length)
            model.splice(0, count)
          }
        }
        for (let i = 0; i < model.length; i++) if (slots.get(i) !== model[i]) return false
        return true
      }),
      { numRuns: 60 },
    )
  })

  it('drops whole chunks without copying the rest, and keeps the order', () => {
    const slots = new SlotArray<number>()
    for (let i = 0; i < 3 * 4096 + 5; i++) slots.set(i, i)
    slots.dropFront(2 * 4096, 3 * 4096 + 5)
    expect([slots.get(0), slots.get(4096), slots.get(4100)]).toEqual([2 * 4096, 3 * 4096, 3 * 4096 + 4])
  })

  it('Float64Slots holds what a plain array of numbers would, across chunk boundaries and front drops of any size', () => {
    const op = fc.oneof(fc.record({ append: fc.integer({ min: 1, max: 9_000 }) }), fc.record({ drop: fc.oneof(fc.integer({ min: 0, max: 9_000 }), fc.constantFrom(4096, 8192)) }))
    fc.assert(
      fc.property(fc.array(op, { maxLength: 8 }), (ops) => {
        const model: number[] = []
        const slots = new Float64Slots()
        let next = 0
        for (const o of ops) {
          if ('append' in o) {
            for (let k = 0; k < o.append; k++, next++) {
              slots.set(model.length, next * 1.5)
              model.push(next * 1.5)
            }
          } else {
            const count = Math.min(o.drop, model.length)
            slots.dropFront(count, model.length)
            model.splice(0, count)
          }
        }
        for (let i = 0; i < model.length; i++) if (slots.get(i) !== model[i]) return false
        return true
      }),
      { numRuns: 60 },
    )
    const whole = new Float64Slots()
    for (let i = 0; i < 3 * 4096 + 5; i++) whole.set(i, i)
    whole.dropFront(2 * 4096, 3 * 4096 + 5)
    expect([whole.get(0), whole.get(4096), whole.get(4100)]).toEqual([2 * 4096, 3 * 4096, 3 * 4096 + 4])
  })
})
