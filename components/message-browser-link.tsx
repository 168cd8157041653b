// A link into the message browser: a real href (it opens in a new tab, and can be shared), and a
// plain click puts the query in this page's URL and opens the panel there, without a reload.

import type { MouseEvent, ReactNode } from 'react'
import { MESSAGE_BROWSER_ID, messagesHref, OPEN_EVENT, type BrowserQuery } from './message-browser-query.ts'

export interface MessagesLinkProps {
  query: BrowserQuery
  title?: string
  testId?: string
  children: ReactNode
}

/** Opens the browser on `query` in this page: the URL changes (history), the panel reads it and scrolls into view. */
export function openMessages(query: BrowserQuery): void {
  window.history.pushState(null, '', messagesHref(query))
  window.dispatchEvent(new Event(OPEN_EVENT))
  document.getElementById(MESSAGE_BROWSER_ID)?.scrollIntoView({ block: 'start' })
}

export function MessagesLink({ query, title, testId, children }: MessagesLinkProps) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    e.preventDefault()
    openMessages(query)
  }
  return (
    <a
      className="messages-link"
      href={messagesHref(query)}
      onClick={onClick}
      title={title ?? 'open these records in the message browser'}
      data-testid={testId}
    >
      {children}
    </a>
  )
}
