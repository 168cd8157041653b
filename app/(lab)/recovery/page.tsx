import type { Metadata } from 'next'
import { RecoveryPage } from '../../../components/lab-pages.tsx'

export const metadata: Metadata = { title: 'eoscope — recovery' }

// The lab is live: nothing here is prerendered with data; the layout's socket brings it.
export default function Page() {
  return <RecoveryPage />
}
