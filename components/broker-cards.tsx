import { memo } from 'react'
import type { BrokersView, BrokerView } from '../lib/broker-view.ts'
import { Panel } from './panel.tsx'
import { useCommand, type SendCommand } from './use-command.ts'

export interface BrokerCardsProps {
  brokers: BrokersView
  send: SendCommand
}

/** A comma list that stays one line: the first few, then how many more. */
function few(items: string[], max = 6): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} +${items.length - max}`
}

const BrokerCard = memo(function BrokerCard({
  broker,
  send,
  faultsUnavailable,
}: {
  broker: BrokerView
  send: SendCommand
  faultsUnavailable: string | null
}) {
  const [run, state] = useCommand(send)
  const state$ = broker.up ? 'up' : 'down'
  const blocked = faultsUnavailable !== null || state.pending
  return (
    <article
      className={`card broker-card broker-${state$}`}
      data-testid={`broker-${broker.id}`}
      data-state={state$}
      aria-label={`broker ${broker.id}, ${state$}`}
    >
      <header className="broker-head">
        <span className="mono strong">broker {broker.id}</span>
        {broker.controllerLeader ? (
          <span className="badge" title="the KRaft quorum's leader: the active controller">
            controller
          </span>
        ) : null}
        <span
          className={`badge ${broker.up ? 'badge-running' : 'badge-killed'}`}
          data-testid={`broker-state-${broker.id}`}
        >
          {state$}
        </span>
      </header>
      <dl className="broker-facts">
        <dt>address</dt>
        <dd className="mono">{broker.address}</dd>
        {broker.pid !== null ? (
          <>
            <dt>process</dt>
            <dd className="mono">pid {broker.pid}</dd>
          </>
        ) : null}
        <dt>leader of</dt>
        <dd className="mono ellipsis" data-testid={`broker-leads-${broker.id}`} title={broker.leaderOf.join(', ')}>
          {broker.leaderOf.length ? few(broker.leaderOf) : '—'}
        </dd>
        <dt>coordinator</dt>
        <dd
          className="mono ellipsis"
          data-testid={`broker-coordinates-${broker.id}`}
          title={[...(broker.groupCoordinator ? ['the group'] : []), ...broker.transactionCoordinatorOf].join(', ')}
        >
          {broker.groupCoordinator ? <span className="broker-role">group</span> : null}
          {broker.transactionCoordinatorOf.length ? (
            <span className="broker-role">txn {few(broker.transactionCoordinatorOf, 3)}</span>
          ) : null}
          {!broker.groupCoordinator && broker.transactionCoordinatorOf.length === 0 ? '—' : null}
        </dd>
      </dl>
      <div className="broker-actions">
        <button
          type="button"
          className="danger"
          disabled={blocked || !broker.up || broker.pid === null}
          data-testid={`kill-broker-${broker.id}`}
          onClick={() => run('killBroker', { brokerId: broker.id })}
          title={
            faultsUnavailable ??
            'SIGKILL: no controlled shutdown; its leaderships and coordinators move once the controller fences it'
          }
        >
          Kill (SIGKILL)
        </button>
        <button
          type="button"
          disabled={blocked || broker.up}
          data-testid={`restart-broker-${broker.id}`}
          onClick={() => run('restartBroker', { brokerId: broker.id })}
          title={faultsUnavailable ?? 'start the broker again (scripts/kafka-cluster.sh restart)'}
        >
          Restart
        </button>
      </div>
      <p className="control-error" role="status" aria-live="polite">
        {state.error ? `⚠ ${state.error}` : ''}
      </p>
    </article>
  )
})

/** The cluster's brokers on a Kafka lab: what each leads and coordinates for the lab, Kill and Restart. */
export const BrokerCards = memo(function BrokerCards({ brokers, send }: BrokerCardsProps) {
  return (
    <Panel
      title="Brokers"
      hint="Partition leaders of the lab's topics, its group's coordinator, its transactional ids' coordinators"
      testId="brokers"
    >
      <div className="broker-grid">
        {brokers.brokers.map((b) => (
          <BrokerCard key={b.id} broker={b} send={send} faultsUnavailable={brokers.faultsUnavailable} />
        ))}
      </div>
      {brokers.faultsUnavailable ? (
        <p className="muted small unavailable" data-testid="unavailable-broker-faults">
          {brokers.faultsUnavailable}
        </p>
      ) : null}
      {brokers.error ? <p className="control-error">⚠ brokers not read: {brokers.error}</p> : null}
    </Panel>
  )
})
