import type { LabSnapshot } from '../lib/lab-protocol.ts'
import { DuplicateLedger } from './duplicate-ledger-panel.tsx'
import { PartitionLogView } from './partition-log-panel.tsx'
import { ProducersView } from './producers-view.tsx'
import { RecordTraceView } from './record-trace-view.tsx'
import type { SendCommand } from './use-command.ts'

export interface DeepViewsProps {
  snapshot: LabSnapshot
  send: SendCommand
}

const NO_PRODUCERS: NonNullable<LabSnapshot['producers']> = []
const NO_LEDGER: NonNullable<LabSnapshot['duplicateLedger']> = []

/** The deep views under the dashboard: the evidence behind each exactly-once claim, live. */
export function DeepViews({ snapshot, send }: DeepViewsProps) {
  return (
    <section className="deep-views" aria-labelledby="deep-views-title" data-testid="deep-views" id="deep-views">
      <header className="deep-views-head">
        <h2 id="deep-views-title">Deep views</h2>
        <p className="muted small">The logs, producers and records behind the figures above, read from the same lab.</p>
      </header>
      <PartitionLogView log={snapshot.partitionLog ?? null} partitions={snapshot.config.partitions} send={send} />
      <RecordTraceView traces={snapshot.traces} startedAtMs={snapshot.startedAtMs} />
      <ProducersView
        producers={snapshot.producers ?? NO_PRODUCERS}
        startedAtMs={snapshot.startedAtMs}
        nowMs={snapshot.atMs}
      />
      <DuplicateLedger
        entries={snapshot.duplicateLedger ?? NO_LEDGER}
        guarantee={snapshot.config['processing.guarantee']}
        correctness={snapshot.correctness}
      />
    </section>
  )
}
