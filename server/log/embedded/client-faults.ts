// Fault-injection points of the embedded log that act on its clients: produce responses lost
// after the broker appended (the producer retries the same request).

export class ClientFaults {
  private acksToDrop = 0
  private readonly listeners: ((e: AckDropped) => void)[] = []
  /** Drops the responses of the next n produce requests after the broker appended them. */
  dropNextAcks(n: number): void {
    this.acksToDrop += n
  }
  pendingAckDrops(): number {
    return this.acksToDrop
  }
  takeAckDrop(): boolean {
    if (this.acksToDrop <= 0) return false
    this.acksToDrop--
    return true
  }
  private sendsToFail = 0
  /**
   * The next n produce requests fail with a connection error after the broker appended them: the
   * client cannot tell whether its records were written (what a cut connection leaves on Kafka).
   */
  failNextSends(n: number): void {
    this.sendsToFail += n
  }
  takeSendFailure(): boolean {
    if (this.sendsToFail <= 0) return false
    this.sendsToFail--
    return true
  }
  private offsetReadsToFail = 0
  /**
   * The next n ListOffsets requests of a reader are answered NOT_LEADER (what a broker answers for a
   * few seconds after a restart, while its partitions get their leaders back).
   */
  failNextOffsetReads(n: number): void {
    this.offsetReadsToFail += n
  }
  pendingOffsetReadFailures(): number {
    return this.offsetReadsToFail
  }
  takeOffsetReadFailure(): boolean {
    if (this.offsetReadsToFail <= 0) return false
    this.offsetReadsToFail--
    return true
  }
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
