'use client'
// The pages of eoscope, the same on every page: the Learn path first (for a newcomer), the live
// lab's views, then the pages that run beside it. The current page is marked for assistive
// technology (aria-current) and by style.

import Link from 'next/link'
import { usePathname } from 'next/navigation'

export interface NavItem {
  href: string
  label: string
  /** What a reader finds there, on hover and focus. */
  title: string
}

export const NAV_ITEMS: readonly NavItem[] = [
  {
    href: '/learn',
    label: 'Learn',
    title: 'the argument in seven chapters, each checked on the live lab: start here if eoscope is new to you',
  },
  { href: '/', label: 'Overview', title: 'the live lab on one screen: controls, the five steps, workers, correctness' },
  { href: '/scenarios', label: 'Scenarios', title: 'eight scripted faults, each checked against what it claims' },
  {
    href: '/transactions',
    label: 'Transactions',
    title: 'every transaction: lanes, history, coordinator and producers',
  },
  { href: '/recovery', label: 'Recovery', title: 'recovery after each kill, phase by phase, and the consumer group' },
  {
    href: '/partitions',
    label: 'Partitions',
    title: 'each partition: offsets, the log record by record, the messages',
  },
  { href: '/journal', label: 'Journal', title: 'what happened to the lab, newest first, with filters' },
  {
    href: '/experiments',
    label: 'Experiments',
    title: 'throughput against recovery time as commit.interval.ms changes',
  },
  { href: '/observe', label: 'Observe', title: 'watch an application eoscope did not start, read-only (Kafka)' },
]

/** Whether `href` is the page at `pathname` (the overview only at /). */
export function isCurrent(href: string, pathname: string | null): boolean {
  if (pathname === null) return false
  return href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`)
}

export function SiteNav() {
  const pathname = usePathname()
  return (
    <nav className="site-nav" aria-label="pages">
      <ul>
        {NAV_ITEMS.map((item) => {
          const current = isCurrent(item.href, pathname)
          return (
            <li key={item.href}>
              <Link
                href={item.href}
                title={item.title}
                aria-current={current ? 'page' : undefined}
                className={current ? 'current' : undefined}
                data-testid={`nav-${item.label.toLowerCase()}`}
              >
                {item.label}
              </Link>
            </li>
          )
        })}
      </ul>
    </nav>
  )
}
