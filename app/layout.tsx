import type { Metadata, Viewport } from 'next'
import type { ReactNode } from 'react'
import { THEME_INIT_SCRIPT } from '../components/theme-script.ts'
import './globals.css'

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
