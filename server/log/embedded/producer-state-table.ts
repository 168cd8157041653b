// A partition's idempotent-producer bookkeeping (Kafka's ProducerStateManager): per producer id
// its epoch, last sequence and the last batches written, to fence older epochs, acknowledge a
// retried batch without appending it again, and refuse a sequence gap.

import { LogError } from '../errors.ts'

/** Kafka keeps the metadata of the last 5 batches per producer to recognise retried ones. */
const RETAINED_BATCHES_PER_PRODUCER = 5

interface ProducerEntry {
  epoch: number
  lastSequence: number
  recent: { baseSequence: number; count: number; baseOffset: number }[]
}

export const NO_PRODUCER_ID = -1
export const NO_SEQUENCE = -1

export class ProducerStateTable {
  private readonly producers = new Map<number, ProducerEntry>()

  /** Names the partition in errors. */
  constructor(private readonly where: string) {}

  lastSequence(producerId: number): number | undefined {
    return this.producers.get(producerId)?.lastSequence
  }

  /**
   * Checks a batch before it is appended: throws PRODUCER_FENCED for an older epoch and
   * OUT_OF_ORDER_SEQUENCE_NUMBER for a gap; returns the base offset of the batch it retries, or
   * null when it is new. Batches without a sequence (coordinator writes) are only epoch-checked.
   */
  check(producerId: number, epoch: number, baseSequence: number, count: number): number | null {
    if (producerId === NO_PRODUCER_ID) return null
    const producer = this.producers.get(producerId)
    if (producer && epoch < producer.epoch) {
      throw new LogError(
        'PRODUCER_FENCED',
        `producer ${producerId} epoch ${epoch} is older than ${producer.epoch} on ${this.where}`,
      )
    }
    if (baseSequence === NO_SEQUENCE) return null
    if (!producer) {
      if (baseSequence !== 0)
        throw new LogError(
          'OUT_OF_ORDER_SEQUENCE_NUMBER',
          `producer ${producerId} is unknown here; its first sequence must be 0, got ${baseSequence}`,
        )
      return null
    }
    if (epoch !== producer.epoch) {
      if (baseSequence !== 0)
        throw new LogError('OUT_OF_ORDER_SEQUENCE_NUMBER', `a new epoch must start at sequence 0, got ${baseSequence}`)
      return null
    }
    const retried = producer.recent.find((b) => b.baseSequence === baseSequence && b.count === count)
    if (retried) return retried.baseOffset
    if (baseSequence !== producer.lastSequence + 1) {
      throw new LogError(
        'OUT_OF_ORDER_SEQUENCE_NUMBER',
        `expected sequence ${producer.lastSequence + 1} from producer ${producerId}, got ${baseSequence}`,
      )
    }
    return null
  }

  /** A batch was appended. */
  appended(producerId: number, epoch: number, baseSequence: number, count: number, baseOffset: number): void {
    if (producerId === NO_PRODUCER_ID) return
    let producer = this.producers.get(producerId)
    if (!producer || producer.epoch !== epoch) {
      producer = { epoch, lastSequence: -1, recent: [] }
      this.producers.set(producerId, producer)
    }
    if (baseSequence === NO_SEQUENCE) return
    producer.lastSequence = baseSequence + count - 1
    producer.recent.push({ baseSequence, count, baseOffset })
    if (producer.recent.length > RETAINED_BATCHES_PER_PRODUCER) producer.recent.shift()
  }

  /** A marker carries the coordinator's epoch; data from older epochs is fenced from now on. */
  markerWritten(producerId: number, epoch: number): void {
    const producer = this.producers.get(producerId)
    if (!producer || producer.epoch < epoch) this.producers.set(producerId, { epoch, lastSequence: -1, recent: [] })
  }

  /** Every producer this partition holds state for (DescribeProducers). */
  entries(): { producerId: number; epoch: number; lastSequence: number }[] {
    return [...this.producers].map(([producerId, p]) => ({ producerId, epoch: p.epoch, lastSequence: p.lastSequence }))
  }
}
