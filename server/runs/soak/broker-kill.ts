// Broker SIGKILLs, the three-broker Kafka soak's own fault: a broker of the local cluster
// (scripts/kafka-cluster.sh) killed with no controlled shutdown, with the load and the workers
// running and transactions open (they commit every commit.interval.ms), then started again in the
// background. Each kill aims at a role: the broker coordinating the most of the lab's
// transactional ids, or a broker leading a partition of the input topic. One broker is down at a
// time: with min.insync.replicas 2 of 3, a second one down would stop every write.

import { brokerRoles, isPartitionOf, type BrokerView } from '../../../lib/broker-view.ts'
import { refusal } from '../../log/capabilities.ts'
import type { Fault } from './faults.ts'

export type BrokerKillTarget = 'group-coordinator' | 'transaction-coordinator' | 'input-leader'

export interface BrokerKill {
  atMs: number
  brokerId: number
  target: BrokerKillTarget
  /** What it did for the lab when it was killed. */
  roles: string[]
  /** From the kill until the restarted broker answered (null: not back, see restartError). */
  downMs: number | null
  /** The last restart's failure, while it is not back. */
  restartError?: string
  /** Restarts tried (more than 1: a restart failed and was tried again at a later draw). */
  restartAttempts: number
}

/** The victim for a target among brokers all up, or null when none fits. Pure: tested from fixtures. */
export function brokerKillVictim(
  brokers: readonly BrokerView[],
  target: BrokerKillTarget,
  inputTopic: string,
  pick: <T>(xs: readonly T[]) => T,
): BrokerView | null {
  if (brokers.length < 3 || brokers.some((b) => !b.up || b.pid === null)) return null
  if (target === 'group-coordinator') return brokers.find((b) => b.groupCoordinator) ?? null
  if (target === 'transaction-coordinator') {
    const most = Math.max(...brokers.map((b) => b.transactionCoordinatorOf.length))
    return most > 0 ? pick(brokers.filter((b) => b.transactionCoordinatorOf.length === most)) : null
  }
  const leaders = brokers.filter((b) => b.leaderOf.some((p) => isPartitionOf(p, inputTopic)))
  return leaders.length > 0 ? pick(leaders) : null
}

/**
 * The drawn fault (share of the draws): kills a broker when all three are up and none is being
 * restarted; `kills` receives each kill, completed when its broker answers again.
 */
export function brokerKillFault(kills: BrokerKill[], share = 0.15): Fault & { settled(): Promise<void> } {
  let restarting: Promise<void> | null = null
  /** A killed broker whose restart failed: started again at the next draw, before any other kill. */
  let down: BrokerKill | null = null
  /** Each kill's moment on the soak's clock (kept out of the report, whose atMs is elapsed time). */
  const killedAt = new WeakMap<BrokerKill, number>()
  const restart = (control: { restart(id: number): Promise<void> }, kill: BrokerKill, now: () => number) => {
    kill.restartAttempts++
    restarting = control
      .restart(kill.brokerId)
      .then(
        () => {
          kill.downMs = Math.round(now() - killedAt.get(kill)!)
          delete kill.restartError
          down = null
        },
        (e: unknown) => {
          kill.restartError = e instanceof Error ? e.message.split('\n')[0] : String(e)
          down = kill
        },
      )
      .finally(() => {
        restarting = null
      })
  }
  return {
    share,
    settled: async () => {
      await restarting
    },
    async apply(ctx) {
      const conn = ctx.lab.connection
      const control = conn.brokers?.()
      if (restarting !== null || !control || refusal(conn.capabilities, 'broker-faults') !== null) return
      if (down !== null) return restart(control, down, () => ctx.time.now())
      const views = await control
        .describe({
          topics: Object.values(ctx.lab.topics),
          groupId: ctx.lab.groupId,
          transactionalIdPrefix: `${ctx.lab.groupId}-`,
        })
        .catch(() => null)
      if (views === null) return
      const target: BrokerKillTarget = ctx.rng.next() < 0.5 ? 'transaction-coordinator' : 'input-leader'
      const victim = brokerKillVictim(views, target, ctx.lab.topics.input, (xs) => ctx.rng.pick(xs))
      if (victim === null) return
      const pid = await control.kill(victim.id).catch(() => null)
      if (pid === null) return
      const kill: BrokerKill = {
        atMs: Math.round(ctx.elapsedMs()),
        brokerId: victim.id,
        target,
        roles: brokerRoles(victim),
        downMs: null,
        restartAttempts: 0,
      }
      killedAt.set(kill, ctx.time.now())
      kills.push(kill)
      ctx.record('brokerKill', `broker ${victim.id} (pid ${pid}), ${target}: ${kill.roles.join('; ')}`)
      restart(control, kill, () => ctx.time.now())
    },
  }
}
