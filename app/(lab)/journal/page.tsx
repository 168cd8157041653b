import type { Metadata } from 'next'
import { JournalPage } from '../../../components/lab-pages.tsx'

export const metadata: Metadata = { title: 'eoscope — journal' }

// The lab is live: nothing here is prerendered with data; the layout's socket brings it.
export default function Page() {
  return <JournalPage />
}
