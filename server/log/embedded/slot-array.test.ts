import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Float64Slots, SlotArray } from './slot-array.ts'

interface Slots<T> {
  get(slot: number): T
  set(slot: number, value: T): void
  dropFront(count: number, length: number): void
}

/**
 * Appends and front drops against a plain array as the model; sizes cross the
 * 4096-slot chunks, and some drops are whole chunks.
 */
function holdsWhatAnArrayWould<T>(make: () => Slots<T>, valueFor: (n: number) => T): void {
  const op = fc.oneof(
    fc.record({ append: fc.integer({ min: 1, max: 9_000 }) }),
    fc.record({ drop: fc.oneof(fc.integer({ min: 0, max: 9_000 }), fc.constantFrom(4096, 8192)) }),
  )
  fc.assert(
    fc.property(fc.array(op, { maxLength: 8 }), (ops) => {
      const model: T[] = []
      const slots = make()
      let next = 0
      for (const o of ops) {
        if ('append' in o) {
          for (let k = 0; k < o.append; k++, next++) {
            slots.set(model.length, valueFor(next))
            model.push(valueFor(next))
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
}

/** Three chunks and five slots, the first two chunks dropped: the rest keeps its order. */
function dropsWholeChunks(slots: Slots<number>): void {
  for (let i = 0; i < 3 * 4096 + 5; i++) slots.set(i, i)
  slots.dropFront(2 * 4096, 3 * 4096 + 5)
  expect([slots.get(0), slots.get(4096), slots.get(4100)]).toEqual([2 * 4096, 3 * 4096, 3 * 4096 + 4])
}

describe('SlotArray', () => {
  it('holds what a plain array would, across chunk boundaries and front drops of any size', () => {
    holdsWhatAnArrayWould(
      () => new SlotArray<string | null>(),
      (n) => (n % 7 === 0 ? null : `v${n}`),
    )
  })
  it('drops whole chunks and keeps the order', () => dropsWholeChunks(new SlotArray<number>()))
})

describe('Float64Slots', () => {
  it('holds what a plain array of numbers would, across chunk boundaries and front drops of any size', () => {
    holdsWhatAnArrayWould(
      () => new Float64Slots(),
      (n) => n * 1.5,
    )
  })
  it('drops whole chunks and keeps the order', () => dropsWholeChunks(new Float64Slots()))
})
