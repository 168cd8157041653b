import type { Metadata, Viewport } from 'next'
import { headers } from 'next/headers'
import type { ReactNode } from 'react'
import { THEME_INIT_SCRIPT } from '../components/theme-script.ts'
// The dashboard's styles, in cascade order.
import './globals.css'
import './styles/stats-controls-charts.css'
import './styles/pipeline-workers-recovery.css'
import './styles/transactions-scenarios.css'
import './styles/deep-views.css'
import './styles/fail-controls.css'
import './styles/time-control.css'
import './styles/transactions-view.css'
import './styles/group-view.css'
import './styles/message-browser.css'
import './styles/transaction-history.css'
import './styles/broker-cards.css'
import './styles/pages.css'

export const metadata: Metadata = {
  title: 'eoscope — exactly-once, made visible',
  description: "A live lab for Kafka Streams' processing guarantees: kill workers, watch recovery, count duplicates.",
}

export const viewport: Viewport = {
  colorScheme: 'dark light',
}

// The server's CSP allows only scripts carrying this request's nonce (server/http/security-headers.ts);
// reading it renders every page per request, so Next puts the nonce on its own scripts too.
export default async function RootLayout({ children }: { children: ReactNode }) {
  const nonce = (await headers()).get('x-nonce') ?? undefined
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: the theme script, a constant of ours
            (components/theme-script.ts) run before the first paint, allowed by this request's CSP nonce */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_INIT_SCRIPT }} />
      </head>
      <body>{children}</body>
    </html>
  )
}
