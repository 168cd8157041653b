// The broker cards of a lab on Kafka: the cluster's brokers as the log connection's broker seam
// describes them for this lab (its topics, its group, its transactional ids), refreshed every
// couple of seconds, and the Kill (SIGKILL) and Restart commands with their journal entries.
// Whether a broker may be killed is the connection's capability broker-faults, not decided here.

import { brokerRoles, type BrokersView } from '../../lib/broker-view.ts'
import type { CommandResult } from '../../lib/lab-protocol.ts'
import type { JournalFact } from '../../lib/journal.ts'
import { BrokerControlRefused } from '../log/broker-control.ts'
import { refusal } from '../log/capabilities.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'

export const BROKERS_REFRESH_MS = 2_000

type Mark = (label: string, fact: JournalFact) => void

export class BrokerBoard {
  view: BrokersView | null = null
  private refreshing = false
  private readAtMs = Number.NEGATIVE_INFINITY

  constructor(private readonly now: () => number) {}

  /** The snapshot's part: the last read, and a new read started when the last is BROKERS_REFRESH_MS old. */
  part(rt: LabRuntime, nowMs: number): { brokers?: BrokersView } {
    if (nowMs - this.readAtMs >= BROKERS_REFRESH_MS) {
      this.readAtMs = nowMs
      void this.refresh(rt).catch(() => {})
    }
    return this.view ? { brokers: this.view } : {}
  }

  command(
    rt: LabRuntime,
    name: 'killBroker' | 'restartBroker',
    brokerId: number,
    mark: Mark,
  ): Promise<CommandResult | undefined> | CommandResult | undefined {
    return name === 'killBroker' ? this.kill(rt, brokerId, mark) : this.restart(rt, brokerId, mark)
  }

  /** Reads the brokers again (no-op without a broker seam, e.g. the embedded log, or while a read runs). */
  async refresh(rt: LabRuntime): Promise<void> {
    const control = rt.connection.brokers?.()
    if (!control || this.refreshing) return
    this.refreshing = true
    const faultsUnavailable = refusal(rt.connection.capabilities, 'broker-faults')
    try {
      const brokers = await control.describe({
        topics: Object.values(rt.topics),
        groupId: rt.groupId,
        transactionalIdPrefix: `${rt.groupId}-`,
      })
      this.view = { brokers, faultsUnavailable, atMs: this.now(), error: null }
    } catch (e) {
      this.view = {
        brokers: this.view?.brokers ?? [],
        faultsUnavailable,
        atMs: this.now(),
        error: e instanceof Error ? e.message : String(e),
      }
    } finally {
      this.refreshing = false
    }
  }

  async kill(rt: LabRuntime, brokerId: number, mark: Mark): Promise<CommandResult | undefined> {
    const control = rt.connection.brokers?.()
    if (!control) return { ok: false, error: "this lab's log has no brokers" }
    const roles = brokerRoles(this.view?.brokers.find((b) => b.id === brokerId))
    try {
      const pid = await control.kill(brokerId)
      mark(`broker ${brokerId} killed (SIGKILL, pid ${pid})${roles.length ? `: it was ${roles.join('; ')}` : ''}`, {
        kind: 'broker',
        action: 'killed',
        brokerId,
        pid,
        roles,
      })
      void this.refresh(rt).catch(() => {})
    } catch (e) {
      if (e instanceof BrokerControlRefused) return { ok: false, error: e.message }
      throw e
    }
  }

  /**
   * Refused at once when it cannot be done; else started in the background (a broker takes
   * seconds to start), journalled when it answers.
   */
  restart(rt: LabRuntime, brokerId: number, mark: Mark): CommandResult | undefined {
    const control = rt.connection.brokers?.()
    if (!control) return { ok: false, error: "this lab's log has no brokers" }
    const refused = control.restartRefusal(brokerId)
    if (refused !== null) return { ok: false, error: refused }
    const t0 = this.now()
    void control.restart(brokerId).then(
      () => {
        mark(`broker ${brokerId} restarted: answering after ${Math.round(this.now() - t0)} ms`, {
          kind: 'broker',
          action: 'restarted',
          brokerId,
          pid: null,
          roles: [],
        })
        void this.refresh(rt).catch(() => {})
      },
      (e: unknown) =>
        mark(`broker ${brokerId} did not restart: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`, {
          kind: 'broker',
          action: 'restart-failed',
          brokerId,
          pid: null,
          roles: [],
        }),
    )
    return { ok: true, message: `broker ${brokerId} restarting` }
  }
}

/** Each lab's broker board, kept beside it (the lab holds no field for it). */
const boards = new WeakMap<object, BrokerBoard>()
const boardOf = (lab: object, now: () => number) => {
  let board = boards.get(lab)
  if (!board) {
    board = new BrokerBoard(now)
    boards.set(lab, board)
  }
  return board
}

/** What the Lab calls: the snapshot's brokers part, and the killBroker and restartBroker commands. */
export const brokerCards = {
  part: (lab: object, rt: LabRuntime, nowMs: number) => boardOf(lab, () => rt.time.now()).part(rt, nowMs),
  command: (lab: object, rt: LabRuntime, name: 'killBroker' | 'restartBroker', brokerId: number, mark: Mark) =>
    boardOf(lab, () => rt.time.now()).command(rt, name, brokerId, mark),
}
