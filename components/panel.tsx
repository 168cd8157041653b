import type { ReactNode } from 'react'

export interface PanelProps {
  title: string
  /** A short line under the title: what the panel shows, or its definition. */
  hint?: ReactNode
  actions?: ReactNode
  className?: string
  testId?: string
  /** The section's id: the target of a link's #anchor. */
  id?: string
  children: ReactNode
}

export function Panel({ title, hint, actions, className, testId, id, children }: PanelProps) {
  const headingId = `panel-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`
  return (
    <section id={id} className={`panel ${className ?? ''}`} aria-labelledby={headingId} data-testid={testId}>
      <header className="panel-head">
        <div>
          <h2 id={headingId}>{title}</h2>
          {hint ? <p className="panel-hint">{hint}</p> : null}
        </div>
        {actions ? <div className="panel-actions">{actions}</div> : null}
      </header>
      <div className="panel-body">{children}</div>
    </section>
  )
}
