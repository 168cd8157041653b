// A link into the message browser: a real href (it opens in a new tab, and can be shared), and a
// plain click opens the browser's page with the query, without a reload: on that page the panel
// reads the new URL at once; from another page the lab's layout (and its socket) stays.

import Link from 'next/link'
import type { MouseEvent, ReactNode } from 'react'
import {
  type BrowserQuery,
  MESSAGE_BROWSER_ID,
  MESSAGES_PAGE,
  messagesHref,
  OPEN_EVENT,
} from './message-browser-query.ts'

export interface MessagesLinkProps {
  query: BrowserQuery
  title?: string
  testId?: string
  children: ReactNode
}

/**
 * Opens the browser on `query` on its own page: the URL changes (history), the panel reads it and scrolls into
 * view.
 */
export function openMessages(query: BrowserQuery): void {
  const href = messagesHref(query)
  window.history.pushState(null, '', href)
  window.dispatchEvent(new Event(OPEN_EVENT))
  document.getElementById(MESSAGE_BROWSER_ID)?.scrollIntoView({ block: 'start' })
}

export function MessagesLink({ query, title, testId, children }: MessagesLinkProps) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    // From another page, the link navigates (the layout and its socket stay).
    if (window.location.pathname !== MESSAGES_PAGE) return
    e.preventDefault()
    openMessages(query)
  }
  return (
    <Link
      className="messages-link"
      href={messagesHref(query)}
      onClick={onClick}
      title={title ?? 'open these records in the message browser'}
      data-testid={testId}
    >
      {children}
    </Link>
  )
}
