// The load generator's producer across broker outages (soaks, the dashboard on Kafka).

import { isLogError } from '../../log/errors.ts'
import type {
  ConsumerGroupMetadata,
  LogProducer,
  OffsetToCommit,
  ProduceRecord,
  ProducerIdentity,
  PartitionAck,
} from '../../log/types.ts'

const SEND_DEADLINE_MS = 180_000
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/**
 * The load generator's producer on a cluster that may go away for a while (a broker restart): a
 * send that fails is sent again (a retriable error with the same producer, whose sequence numbers
 * let the broker drop a copy it already has; anything else with a fresh producer) until
 * SEND_DEADLINE_MS has passed. A send that still fails is counted and thrown, never dropped
 * silently.
 */
export class RetryingLoadProducer implements LogProducer {
  retriedSends = 0
  replacedProducers = 0
  failedSends = 0
  failedRecords = 0
  sentRecords = 0
  private producer: LogProducer
  /** Closed: a send in its retries gives up at once instead of making a fresh producer on a closed connection. */
  private closed = false

  constructor(
    private readonly make: () => LogProducer,
    private readonly deadlineMs = SEND_DEADLINE_MS,
  ) {
    this.producer = make()
  }

  async send(records: ProduceRecord[]): Promise<PartitionAck[]> {
    const deadline = Date.now() + this.deadlineMs
    for (let attempt = 1; ; attempt++) {
      try {
        const out = await this.producer.send(records)
        this.sentRecords += records.length
        return out
      } catch (e) {
        if (this.closed) throw e
        if (attempt === 1) this.retriedSends++
        if (Date.now() > deadline) {
          this.failedSends++
          this.failedRecords += records.length
          throw new Error(
            `input send of ${records.length} records failed for good after ${attempt} attempts: ` +
              `${(e as Error).message}`,
            { cause: e },
          )
        }
        if (!isLogError(e) || !e.retriable) {
          await this.producer.close().catch(() => {})
          this.producer = this.make()
          this.replacedProducers++
        }
        await sleep(Math.min(1_000, 50 * 2 ** Math.min(attempt, 5)))
      }
    }
  }

  identity(): ProducerIdentity | null {
    return this.producer.identity()
  }
  initTransactions(): Promise<ProducerIdentity> {
    return Promise.reject(new Error('the load generator producer is not transactional'))
  }
  beginTransaction(): void {
    throw new Error('the load generator producer is not transactional')
  }
  sendOffsetsToTransaction(_o: OffsetToCommit[], _g: ConsumerGroupMetadata): Promise<void> {
    return Promise.reject(new Error('the load generator producer is not transactional'))
  }
  commitTransaction(): Promise<void> {
    return Promise.reject(new Error('the load generator producer is not transactional'))
  }
  abortTransaction(): Promise<void> {
    return Promise.reject(new Error('the load generator producer is not transactional'))
  }
  close(): Promise<void> {
    this.closed = true
    return this.producer.close()
  }
}

/**
 * Why the load stopped for good, with the input records it could not write (a retrying producer counts them), or null.
 */
export function loadFailureOf(error: string | null, producer: LogProducer): string | null {
  if (error === null) return null
  const unwritten = producer instanceof RetryingLoadProducer ? producer.failedRecords : 0
  return `${error} (${unwritten} input records not written)`
}
