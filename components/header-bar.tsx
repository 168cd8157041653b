import { memo } from 'react'
import type { Backend, BackendHealth } from '../lib/lab-protocol.ts'
import type { ConnectionState } from './use-lab.ts'
import { SiteNav } from './site-nav.tsx'
import { ThemeToggle } from './theme-toggle.tsx'
import { TokenControl } from './token-control.tsx'

export interface HeaderBarProps {
  backend: Backend | null
  notes: string[]
  connection: ConnectionState
  health: BackendHealth | null
  applicationId: string | null
  /** How far the workers are from the brokers, when a delay is put between them. */
  network?: string | null
  nowMs: number
}

function HealthBadge({ health, nowMs }: { health: BackendHealth; nowMs: number }) {
  if (!health.reachable) {
    return (
      <span
        className="badge badge-outage"
        data-testid="health"
        data-reachable="false"
        role="alert"
        title={health.error ?? undefined}
      >
        cluster unreachable for {Math.max(0, Math.round((nowMs - health.sinceMs) / 1000))} s
      </span>
    )
  }
  const last = health.lastOutage
  return (
    <span
      className="badge badge-health"
      data-testid="health"
      data-reachable="true"
      title={
        last
          ? `last outage lasted ${((last.toMs - last.fromMs) / 1000).toFixed(1)} s`
          : 'no outage since the lab started'
      }
    >
      cluster reachable{health.outages > 0 ? ` · ${health.outages} outage${health.outages === 1 ? '' : 's'}` : ''}
    </span>
  )
}

/** The name and logo at the left of every page's top bar, with what the page is about. */
export function Brand({ tagline }: { tagline: string }) {
  return (
    <div className="brand">
      <span className="logo" aria-hidden="true">
        ◎
      </span>
      <h1>eoscope</h1>
      <span className="muted tagline">{tagline}</span>
    </div>
  )
}

const CONNECTION_TEXT: Record<ConnectionState, string> = {
  connecting: 'connecting…',
  live: 'live',
  offline: 'offline — reconnecting',
  locked: 'locked — token needed',
}

const NETWORK_TITLE =
  "a one-way delay, each way, for which eoscope's proxy holds every frame between the worker processes and the " +
  'brokers (EOSCOPE_NETWORK_LATENCY_MS)'

export const HeaderBar = memo(function HeaderBar({
  backend,
  notes,
  connection,
  health,
  applicationId,
  network = null,
  nowMs,
}: HeaderBarProps) {
  return (
    <header className="top-bar">
      <Brand tagline="exactly-once, made visible" />
      <SiteNav />
      <div className="top-meta">
        <span className="badge badge-backend" data-testid="backend" title="where the topics live">
          backend: {backend ?? '…'}
        </span>
        {network ? (
          <span className="badge" data-testid="network" title={NETWORK_TITLE}>
            {network}
          </span>
        ) : null}
        {applicationId ? (
          <span
            className="badge mono"
            data-testid="application-id"
            title="application.id: the consumer group and the prefix of every topic"
          >
            {applicationId}
          </span>
        ) : null}
        {health ? <HealthBadge health={health} nowMs={nowMs} /> : null}
        <span className={`conn conn-${connection}`} data-testid="connection" role="status">
          <span
            className="dot"
            aria-hidden="true"
            style={connection === 'locked' ? { background: 'var(--warn)' } : undefined}
          />{' '}
          {CONNECTION_TEXT[connection]}
        </span>
        <TokenControl />
        <ThemeToggle />
      </div>
      {notes.length ? (
        <details className="notes" data-testid="notes" open={!(health?.reachable ?? true)}>
          <summary>
            {health && !health.reachable
              ? notes[0]
              : `What the ${backend ?? ''} backend measures differently (${notes.length} notes)`}
          </summary>
          <ul>
            {notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        </details>
      ) : null}
    </header>
  )
})
