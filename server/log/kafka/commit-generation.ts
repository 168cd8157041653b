// The group generation (and member id) an offset commit may carry, on kafkajs.
//
// Java's consumer runs onPartitionsRevoked inside poll(), BEFORE it rejoins: a commit made there
// still carries the old generation, which is valid until the new one forms. kafkajs rejoins on its
// own and tells us afterwards (GROUP_JOIN); the revocation reaches the worker in its next poll().
// If the worker's open transaction then committed under the NEW generation, the coordinator would
// accept offsets for partitions this member no longer owns, possibly after their new owner read
// the committed offsets (require_stable sees nothing pending yet): the new owner redoes what this
// transaction commits, and both copies are committed. Found by e2e/kafka/cluster-kafka.test.ts
// (70 duplicates, two producers, both transactions committed, after a broker SIGKILL).
//
// So a join that takes partitions away leaves the commit generation where it was until the
// revocation has been delivered: a commit in between, or in onPartitionsRevoked itself, is refused
// with ILLEGAL_GENERATION, the worker aborts its transaction and restores its tasks from the
// committed offsets. A join that takes nothing away switches at once: every record in the open
// transaction comes from a partition this member still owns in the new generation.

export interface GroupIdentity {
  generationId: number
  memberId: string
}

/** What a join queues for poll(): the released partitions' step comes before the switch. */
/** Whether a join took partitions away from this member. */
export type JoinChange = 'releases' | 'keeps'

export type JoinOutcome = { switchNow: true } | { switchNow: false; identity: GroupIdentity }

export class CommitGeneration {
  private current: GroupIdentity = { generationId: -1, memberId: '' }
  /** Switches queued behind undelivered revocations, oldest first. */
  private queued = 0

  identity(): GroupIdentity {
    return { ...this.current }
  }

  /**
   * A join completed. 'releases': it took partitions away (revoked or lost) and that step waits for
   * poll(); 'keeps': it took nothing away. Returns whether the identity switched now, or the
   * identity to switch to when poll() reaches the step after the release (switchTo).
   */
  joined(next: GroupIdentity, change: JoinChange): JoinOutcome {
    if (change === 'keeps' && this.queued === 0) {
      this.current = { ...next }
      return { switchNow: true }
    }
    this.queued++
    return { switchNow: false, identity: { ...next } }
  }

  /** poll() delivered the release queued before this identity. */
  switchTo(next: GroupIdentity): void {
    if (this.queued > 0) this.queued--
    this.current = { ...next }
  }
}
