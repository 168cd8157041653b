import type { Metadata } from 'next'
import { PartitionsPage } from '../../../components/lab-pages.tsx'

export const metadata: Metadata = { title: 'eoscope — partitions' }

// The lab is live: nothing here is prerendered with data; the layout's socket brings it.
export default function Page() {
  return <PartitionsPage />
}
