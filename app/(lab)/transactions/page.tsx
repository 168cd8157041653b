import type { Metadata } from 'next'
import { TransactionsPage } from '../../../components/lab-pages.tsx'

export const metadata: Metadata = { title: 'eoscope — transactions' }

// The lab is live: nothing here is prerendered with data; the layout's socket brings it.
export default function Page() {
  return <TransactionsPage />
}
