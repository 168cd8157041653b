import type { Metadata } from 'next'
import { ExperimentsView } from '../../components/experiments/experiments-view.tsx'
import '../../components/experiments/experiments.css'

export const metadata: Metadata = {
  title: 'eoscope — commit-interval experiments',
  description:
    'Throughput against end-to-end latency and recovery time as commit.interval.ms changes, measured per guarantee.',
}

// Results come from the running server (REST); nothing is prerendered with data.
export default function ExperimentsPage() {
  return <ExperimentsView />
}
