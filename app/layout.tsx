import type { Metadata, Viewport } from 'next'
import type { ReactNode } from 'react'
import { THEME_INIT_SCRIPT } from '../components/theme-script.ts'
// The dashboard's styles, in cascade order.
import './globals.css'
import './styles/stats-controls-charts.css'
import './styles/pipeline-workers-recovery.css'
import './styles/transactions-scenarios.css'
import './styles/deep-views.css'

export const metadata: Metadata = {
  title: 'eoscope — exactly-once, made visible',
  description: "A live lab for Kafka Streams' processing guarantees: kill workers, watch recovery, count duplicates.",
}

export const viewport: Viewport = {
  colorScheme: 'dark light',
}

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_INIT_SCRIPT }} />
      </head>
      <body>{children}</body>
    </html>
  )
}
