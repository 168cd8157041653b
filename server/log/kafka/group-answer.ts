// What a Kafka consumer waits for after one of its worker's tasks migrated, before it hands out
// records again (LogConsumer.enforceRebalance).
//
// Java's consumer rejoins the group before the tasks are created again (Kafka Streams unsubscribes
// and subscribes after a TaskMigratedException). kafkajs rejoins on its own, when a heartbeat tells
// it this member was dropped or a rebalance began; until then the assignment is the old one, and a
// worker that recreated a migrated task from it would fence its successor back (under exactly_once,
// initTransactions on the task's transactional.id: the zombie scenario on Kafka showed a woken
// zombie do it 8 s before kafkajs rejoined). So the poll waits for either answer of the group:
// - a heartbeat the coordinator accepted after the ask: still a member of this generation, the
//   assignment stands;
// - a completed join: the revocations and losses it brought run before any task is created;
// at most a bound (a rebalance timeout), after which the poll goes on as before.

export interface GroupAnswerWait {
  boundMs: number
  everyMs: number
  stopped: () => boolean
  sleep: (ms: number) => Promise<void>
  now?: () => number
}

export class GroupAnswer {
  private heartbeats = 0
  private pending = false

  /** A heartbeat the coordinator accepted. */
  heartbeatAccepted(): void {
    this.heartbeats++
  }

  ask(): void {
    this.pending = true
  }

  asked(): boolean {
    return this.pending
  }

  /**
   * Waits for an accepted heartbeat or a join (`joins` counts them) after the ask,
   * at most boundMs; 'bound' when neither came.
   */
  async await(joins: () => number, o: GroupAnswerWait): Promise<'heartbeat' | 'join' | 'bound' | 'stopped'> {
    this.pending = false
    const now = o.now ?? Date.now
    const at = { joins: joins(), heartbeats: this.heartbeats }
    const deadline = now() + o.boundMs
    for (;;) {
      if (joins() !== at.joins) return 'join'
      if (this.heartbeats !== at.heartbeats) return 'heartbeat'
      if (o.stopped()) return 'stopped'
      if (now() >= deadline) return 'bound'
      await o.sleep(o.everyMs)
    }
  }
}
