// The brokers behind a log connection, for the lab's broker cards and broker faults. Only a
// connection to a real cluster has brokers (its capabilities say whether it may kill them).

import type { BrokerView } from '../../lib/broker-view.ts'

/** What the lab asks about: its topics, its group (application.id) and its transactional ids' prefix. */
export interface BrokerScope {
  topics: readonly string[]
  groupId: string
  transactionalIdPrefix: string
}

export interface BrokerControl {
  describe(scope: BrokerScope): Promise<BrokerView[]>
  /** SIGKILL of a broker eoscope started; throws BrokerControlRefused with the reason otherwise. Returns its pid. */
  kill(id: number): Promise<number>
  /** Why `restart(id)` would be refused, or null: asked first, since a restart takes seconds. */
  restartRefusal(id: number): string | null
  /** Starts such a broker again (stopping it first if it runs); throws BrokerControlRefused otherwise. */
  restart(id: number): Promise<void>
  close(): Promise<void>
}

/** Thrown when a broker may not be killed or restarted: the message says why. Nothing was changed. */
export class BrokerControlRefused extends Error {
  readonly name = 'BrokerControlRefused'
}
