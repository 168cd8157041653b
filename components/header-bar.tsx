import { memo } from 'react'
import type { Backend } from '../lib/lab-protocol.ts'
import type { ConnectionState } from './use-lab.ts'
import { ThemeToggle } from './theme-toggle.tsx'
import { TokenControl } from './token-control.tsx'

export interface HeaderBarProps {
  backend: Backend | null
  notes: string[]
  connection: ConnectionState
}

const CONNECTION_TEXT: Record<ConnectionState, string> = { connecting: 'connecting…', live: 'live', offline: 'offline — reconnecting', locked: 'locked — token needed' }

export const HeaderBar = memo(function HeaderBar({ backend, notes, connection }: HeaderBarProps) {
  return (
    <header className="top-bar">
      <div className="brand">
        <span className="logo" aria-hidden="true">
          ◎
        </span>
        <h1>eoscope</h1>
        <span className="muted tagline">exactly-once, made visible</span>
      </div>
      <div className="top-meta">
        <span className="badge badge-backend" data-testid="backend" title="where the topics live">
          backend: {backend ?? '…'}
        </span>
        <span className={`conn conn-${connection}`} data-testid="connection" role="status">
          <span className="dot" aria-hidden="true" style={connection === 'locked' ? { background: 'var(--warn)' } : undefined} /> {CONNECTION_TEXT[connection]}
        </span>
        <TokenControl />
        <a href="/experiments" style={{ color: 'var(--accent)', fontSize: 12.5 }} data-testid="link-experiments" title="throughput against latency and recovery as commit.interval.ms changes">
          experiments
        </a>
        <ThemeToggle />
      </div>
      {notes.length ? (
        <ul className="notes" data-testid="notes">
          {notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
    </header>
  )
})
