// Record values stored as UTF-8 bytes in large buffers, as a broker stores them on disk: a stored
// value is a (location, length) pair of numbers, not a heap string the garbage collector must
// trace and copy. Reads decode a fresh, short-lived string.

const CHUNK_SIZE = 1 << 22 // 4 MiB

export class ByteArena {
  private readonly chunks: (Buffer | null)[] = []
  private current: Buffer | null = null
  private position = 0

  /** Stores the string; returns its location. */
  write(s: string): number {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const worst = s.length * 3
    if (this.current === null || this.position + worst > CHUNK_SIZE) {
      this.current = Buffer.allocUnsafe(Math.max(CHUNK_SIZE, worst))
      this.chunks.push(this.current)
      this.position = 0
    }
    const location = (this.chunks.length - 1) * CHUNK_SIZE + this.position
    this.position += this.current.write(s, this.position, 'utf8')
    return location
  }

  /** The location the next write() would use: where the last written value ends. */
  get end(): number {
    return (this.chunks.length - 1) * CHUNK_SIZE + this.position
  }

  read(location: number, byteLength: number): string {
    const chunk = this.chunks[Math.floor(location / CHUNK_SIZE)]
    if (!chunk) throw new Error(`value at ${location} was released by retention`)
    const start = location % CHUNK_SIZE
    return chunk.toString('utf8', start, start + byteLength)
  }

  /** Releases every chunk that holds only bytes before `location`. */
  releaseBefore(location: number): void {
    const last = Math.floor(location / CHUNK_SIZE)
    for (let i = 0; i < last && i < this.chunks.length - 1; i++) this.chunks[i] = null
  }

  /** Bytes held in live chunks. */
  retainedBytes(): number {
    return this.chunks.reduce((n, c) => n + (c ? c.length : 0), 0)
  }
}
