import type { Metadata } from 'next'
import { ObserveView } from '../../components/observe/observe-view.tsx'
import '../../components/observe/observe.css'

export const metadata: Metadata = {
  title: 'eoscope — observe an application',
  description:
    'An application eoscope did not start, watched read-only on a Kafka cluster: its group, generations, ' +
    'transactions, partitions and the validator on its topics.',
}

// Samples come from the running server (REST); nothing is prerendered with data.
export default function ObservePage() {
  return <ObserveView />
}
