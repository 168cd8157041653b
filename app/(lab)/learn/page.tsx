import type { Metadata } from 'next'
import { Suspense } from 'react'
import '../../styles/learn.css'
import { LearnPage } from '../../../components/learn-page.tsx'

export const metadata: Metadata = { title: 'eoscope — learn' }

// The chapter is in the URL (?chapter=N): read on the client, under Suspense as Next requires.
export default function Page() {
  return (
    <Suspense fallback={null}>
      <LearnPage />
    </Suspense>
  )
}
