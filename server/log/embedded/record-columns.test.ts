import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { RecordColumns } from './record-columns.ts'

interface Slot {
  offset: number
  key: string | null
  value: string | null
  timestamp: number
  batch: { id: number }
}

/** values(from, to), decoded together, agree with value(i) slot by slot: over every slot and over a seeded range. */
function expectValuesAgree(cols: RecordColumns<{ id: number }>, seed: number): void {
  const n = cols.length
  const one = (from: number, to: number) => Array.from({ length: to - from }, (_, j) => cols.value(from + j))
  expect(cols.values(0, n)).toEqual(one(0, n))
  const from = n === 0 ? 0 : seed % n
  const to = from + ((seed >> 3) % (n - from + 1))
  expect(cols.values(from, to)).toEqual(one(from, to))
}

function slotsOf(cols: RecordColumns<{ id: number }>): Slot[] {
  return Array.from({ length: cols.length }, (_, i) => ({
    offset: cols.offsetOfSlot(i),
    key: cols.key(i),
    value: cols.value(i),
    timestamp: cols.timestamp(i),
    batch: cols.batch(i),
  }))
}

const value = fc.option(
  fc.oneof(fc.string({ unit: 'grapheme-ascii', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 10 })),
  { freq: 8 },
)

/** Pushes the batches, then drops the front and compacts, comparing every slot with a plain model at each step. */
function checkColumns(batches: [string | null, string | null][][], dropSeed: number, keepSeed: number): void {
  const cols = new RecordColumns<{ id: number }>()
  const model: Slot[] = []
  let offset = 0
  batches.forEach((records, id) => {
    const batch = { id }
    cols.pushAll(
      offset,
      records.map(([key, v], j) => ({ key, value: v, timestamp: 1_000 + offset + j })),
      0,
      batch,
    )
    records.forEach(([key, v], j) => {
      model.push({ offset: offset + j, key, value: v, timestamp: 1_000 + offset + j, batch })
    })
    offset += records.length
  })
  expect(slotsOf(cols)).toEqual(model)
  expectValuesAgree(cols, dropSeed ^ keepSeed)
  // Retention: the first slots go; the others keep their batches.
  const drop = dropSeed % (model.length + 1)
  cols.dropFront(drop, model[drop]?.offset ?? offset)
  const afterDrop = model.slice(drop)
  expect(slotsOf(cols)).toEqual(afterDrop)
  expectValuesAgree(cols, keepSeed)
  // Compaction: every other slot from a seeded start stays, with its offset.
  const keep = afterDrop.map((_, i) => i).filter((i) => (i + keepSeed) % 2 === 0)
  cols.keepOnly(keep)
  expect(slotsOf(cols)).toEqual(keep.map((i) => afterDrop[i]!))
  expectValuesAgree(cols, dropSeed)
  // Appending after compaction keeps the offsets it is given.
  const batch = { id: 99 }
  cols.pushAll(offset + 5, [{ key: 'z', value: 'after' }], 7, batch)
  expect(slotsOf(cols).at(-1)).toEqual({ offset: offset + 5, key: 'z', value: 'after', timestamp: 7, batch })
  expect(cols.slotOf(offset + 5)).toBe(cols.length - 1)
}

const records = (maxLength: number) =>
  fc.array(fc.tuple(fc.option(fc.constantFrom('a', 'b', 'c')), value), { minLength: 1, maxLength })

describe('RecordColumns', () => {
  it("keeps every slot's offset, key, value, timestamp and batch through growth, retention and compaction", () => {
    fc.assert(fc.property(fc.array(records(150), { minLength: 1, maxLength: 12 }), fc.nat(), fc.nat(), checkColumns), {
      numRuns: 150,
    })
  })

  it('decodes a range of values together across arena chunks, with nulls and non-ASCII values among them', () => {
    // 6,000 values of 100 bytes fill the arena's first chunks (64 KiB, then doubling): ranges cross their boundaries.
    const cols = new RecordColumns<{ id: number }>()
    const values: (string | null)[] = Array.from({ length: 6_000 }, (_, i) =>
      i % 97 === 0 ? null : `${i}:`.padEnd(100, 'v'),
    )
    values[4_321] = 'caf\u00e9 \u{1f600}'
    for (let i = 0; i < values.length; i += 500)
      cols.pushAll(
        i,
        values.slice(i, i + 500).map((v) => ({ key: 'k', value: v })),
        0,
        { id: i },
      )
    for (const [from, to] of [
      [0, 6_000],
      [0, 600],
      [600, 700],
      [640, 1_400],
      [4_000, 4_600],
      [5_999, 6_000],
      [3, 3],
    ] as const) {
      expect(cols.values(from, to)).toEqual(values.slice(from, to))
    }
  })

  it('does so across its 4096-slot chunks, with retention dropping whole chunks or part of one', () => {
    fc.assert(
      fc.property(
        fc.array(records(5_000), { minLength: 1, maxLength: 4 }),
        fc.oneof(fc.nat(), fc.constantFrom(4096, 8192)),
        fc.nat(),
        checkColumns,
      ),
      { numRuns: 15 },
    )
  })
})
