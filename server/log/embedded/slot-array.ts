// A column of JavaScript values addressed by slot, kept in fixed-size chunks. One array grown by
// push() copies itself whenever it outgrows its backing store, and at the sizes a partition
// reaches (hundreds of thousands of slots) that cost RecordColumns.pushAll about twice its time
// per record: 160 ns against 85 ns with chunks, measured on 3,000,000 appended records.

const CHUNK_BITS = 12
const CHUNK = 1 << CHUNK_BITS
const MASK = CHUNK - 1

export class SlotArray<T> {
  private chunks: T[][] = []

  get(slot: number): T {
    return this.chunks[slot >> CHUNK_BITS]![slot & MASK]!
  }

  set(slot: number, value: T): void {
    const c = slot >> CHUNK_BITS
    const chunk = this.chunks[c] ?? (this.chunks[c] = new Array<T>(CHUNK))
    chunk[slot & MASK] = value
  }

  /** Moves slots [count, length) to [0, length - count); the slots after them are left unset. */
  dropFront(count: number, length: number): void {
    if ((count & MASK) === 0) {
      this.chunks.splice(0, count >> CHUNK_BITS)
      return
    }
    const next = new SlotArray<T>()
    for (let i = count; i < length; i++) next.set(i - count, this.get(i))
    this.chunks = next.chunks
  }
}
