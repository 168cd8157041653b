// Fault-injection points of the embedded log that act on its clients: produce responses lost
// after the broker appended (the producer retries the same request), produce connections cut
// after the append, ListOffsets answered NOT_LEADER, a consumer whose position goes back, and
// offset commits refused (the coordinator away, or for good).

/** How many more times one fault point fires: armed by a test or the lab, spent one at a time by the log. */
export class FaultBudget {
  private left = 0

  /** The next n times this point is reached, the fault happens. */
  arm(n: number): void {
    if (!Number.isInteger(n) || n < 0)
      throw new RangeError(`a fault budget is armed with a non-negative integer, got ${n}`)
    this.left += n
  }
  /** Forgets what is armed and not yet spent. */
  disarm(): void {
    this.left = 0
  }
  pending(): number {
    return this.left
  }
  /** True (and one spent) when the fault happens this time. */
  take(): boolean {
    if (this.left <= 0) return false
    this.left--
    return true
  }
}

export class ClientFaults {
  /** Produce responses dropped after the broker appended them. */
  readonly ackDrops = new FaultBudget()
  /**
   * Produce requests that fail with a connection error after the broker appended them: the client
   * cannot tell whether its records were written (what a cut connection leaves on Kafka).
   */
  readonly sendFailures = new FaultBudget()
  /**
   * ListOffsets requests of a reader answered NOT_LEADER (what a broker answers for a few seconds
   * after a restart, while its partitions get their leaders back).
   */
  readonly offsetReadFailures = new FaultBudget()
  /**
   * Polls after which the consumer's positions go back to the first record each partition handed
   * out: the next poll hands those records out again. A consumer must never do that (kafkajs does
   * after a rebalance, from the committed offset, unless guarded: position-guard.ts); the engine
   * checks for it (redelivery.ts).
   */
  readonly positionRewinds = new FaultBudget()
  /**
   * OffsetCommit requests answered as when the group's coordinator is on a broker that is down
   * (BROKER_NOT_AVAILABLE, retriable: Kafka's consumer retries it until default.api.timeout.ms).
   */
  readonly commitFailures = new FaultBudget()
  /** OffsetCommit requests refused with an error no retry cures (INVALID_REQUEST): a worker's fatal error. */
  readonly fatalCommitFailures = new FaultBudget()
  private readonly listeners: ((e: AckDropped) => void)[] = []

  onAckDropped(l: (e: AckDropped) => void): void {
    this.listeners.push(l)
  }
  notify(e: AckDropped): void {
    for (const l of this.listeners) l(e)
  }
}

export interface AckDropped {
  clientId: string
  producerId: number
  epoch: number
  idempotent: boolean
  batches: { topic: string; partition: number; baseSequence: number; baseOffset: number; count: number }[]
  atMs: number
}
