// The load generator: appends keyed integer records to the input topic at a rate, seeded.

import { partitionForKey } from '../../lib/partitioner.ts'
import type { LogProducer, ProduceRecord } from '../log/types.ts'
import { SeededRandom, type Time } from '../log/time.ts'

export interface LoadGeneratorOptions {
  topic: string
  partitions: number
  /** Records per second; Infinity feeds as fast as it can. */
  ratePerSec: number
  /** Stop after this many records (Infinity: never). */
  maxRecords: number
  keys: number
  seed: number
  /** Share of records whose value does not parse (poison), 0 by default. */
  poisonRatio?: number
  tickMs?: number
  batchMax?: number
  /** At full speed, stop feeding while the workers have more than this many records left to consume. */
  maxBacklog?: number
  backlog?: () => number
}

export class LoadGenerator {
  sent = 0
  private stopped = false
  private readonly random: SeededRandom
  private readonly keyNames: string[]
  private readonly keyPartition: number[]
  done: Promise<void> = Promise.resolve()

  constructor(
    private readonly producer: LogProducer,
    private options: LoadGeneratorOptions,
    private readonly time: Time,
  ) {
    this.random = new SeededRandom(options.seed)
    this.keyNames = Array.from({ length: options.keys }, (_, i) => `k${String(i).padStart(4, '0')}`)
    this.keyPartition = this.keyNames.map((k) => partitionForKey(k, options.partitions))
  }

  setRate(ratePerSec: number): void {
    this.options = { ...this.options, ratePerSec }
  }
  get rate(): number {
    return this.options.ratePerSec
  }
  get finished(): boolean {
    return this.sent >= this.options.maxRecords
  }

  start(): Promise<void> {
    this.done = this.run()
    return this.done
  }
  stop(): void {
    this.stopped = true
  }
  /**
   * Feeds again at this rate, without end, after it stopped or sent its record count (a
   * scenario's lab handed back to the dashboard).
   */
  async continueEndless(ratePerSec: number): Promise<void> {
    this.stopped = true
    await this.done
    this.stopped = false
    this.options = { ...this.options, ratePerSec, maxRecords: Number.POSITIVE_INFINITY, maxBacklog: undefined }
    void this.start()
  }

  private nextBatch(n: number): ProduceRecord[] {
    const out: ProduceRecord[] = new Array(n)
    const poison = this.options.poisonRatio ?? 0
    for (let i = 0; i < n; i++) {
      const k = this.random.int(0, this.keyNames.length)
      const value =
        poison > 0 && this.random.next() < poison ? `not-a-number-${this.sent + i}` : String(this.random.int(0, 1000))
      out[i] = { topic: this.options.topic, partition: this.keyPartition[k]!, key: this.keyNames[k]!, value }
    }
    return out
  }

  private async run(): Promise<void> {
    const tickMs = this.options.tickMs ?? 10
    const batchMax = this.options.batchMax ?? 5_000
    let last = this.time.now()
    let credit = 0
    while (!this.stopped && !this.finished) {
      const rate = this.options.ratePerSec
      const now = this.time.now()
      credit += ((now - last) / 1000) * rate
      last = now
      if (!Number.isFinite(rate)) credit = batchMax
      credit = Math.min(credit, batchMax * 4)
      let n = Math.min(Math.floor(credit), batchMax, this.options.maxRecords - this.sent)
      if (
        this.options.maxBacklog !== undefined &&
        this.options.backlog &&
        this.options.backlog() > this.options.maxBacklog
      )
        n = 0
      if (n > 0) {
        await this.producer.send(this.nextBatch(n))
        this.sent += n
        credit -= n
      }
      if (Number.isFinite(rate))
        await this.time.sleep(rate > 0 && rate < 1000 / tickMs ? Math.min(1000 / rate, 250) : tickMs)
      else if (n === 0) await this.time.sleep(1)
      else await this.time.yield()
    }
  }
}
