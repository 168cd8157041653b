// What each page of the live lab shows, rendered from one snapshot: pure, so a page renders the
// same live, held on a moment, and in a test. The overview fits one 1440×900 screen; the other
// pages hold the deeper views the overview links to.

import Link from 'next/link'
import type { JournalEntry } from '../lib/journal.ts'
import type { LabSnapshot } from '../lib/lab-protocol.ts'
import { BrokerCards } from './broker-cards.tsx'
import { ChartsPanel } from './charts-panel.tsx'
import { ControlsPanel } from './controls-panel.tsx'
import { CorrectnessPanel } from './correctness-panel.tsx'
import { DuplicateLedger } from './duplicate-ledger-panel.tsx'
import { EventLogPanel, type LogHorizon } from './event-log-panel.tsx'
import { EvidencePanel } from './evidence-card.tsx'
import { GroupView } from './group-panel.tsx'
import { JournalTail } from './journal-tail.tsx'
import { MessageBrowser } from './message-browser-panel.tsx'
import { Panel } from './panel.tsx'
import { PartitionLogView } from './partition-log-panel.tsx'
import { PartitionsTable } from './partitions-table-panel.tsx'
import { PipelinePanel } from './pipeline-panel.tsx'
import { PoisonControls } from './poison-controls.tsx'
import { ProducersView } from './producers-view.tsx'
import { RecordTraceView } from './record-trace-view.tsx'
import { RecoveryPanel } from './recovery-panel.tsx'
import { ScenariosPanel } from './scenarios-panel.tsx'
import { TransactionHistoryView } from './transaction-history-panel.tsx'
import { TransactionsPanel } from './transactions-panel.tsx'
import { TransactionsView } from './coordinators-panel.tsx'
import { TxnStrip } from './txn-strip.tsx'
import type { SendCommand } from './use-command.ts'
import { WorkersPanel } from './workers-panel.tsx'

/** What every page of the lab is given. */
export interface LabPageProps {
  snapshot: LabSnapshot
  send: SendCommand
  /** The journal's entries read so far, oldest first. */
  entries: readonly JournalEntry[]
  /** Null while live: where a held view stands in the journal. */
  horizon: LogHorizon | null
  /** Whether the panels show the live lab or a held moment. */
  held: boolean
  /** The lab serves no journal (an older server). */
  journalUnavailable: boolean
  journalError: string | null
  /** Holds every panel on a moment (a journal line's "show"). */
  onShow: (atMs: number) => void
}

const NO_STOPPED: NonNullable<LabSnapshot['stoppedTasks']> = []
const NO_SCENARIOS: NonNullable<LabSnapshot['scenarios']> = []
const NO_EVIDENCE: NonNullable<LabSnapshot['evidence']> = []
const NO_PRODUCERS: NonNullable<LabSnapshot['producers']> = []
const NO_LEDGER: NonNullable<LabSnapshot['duplicateLedger']> = []

/** The story on one screen: the settings, the five steps, the workers to kill, what the validator finds. */
export function OverviewView({ snapshot, send, entries, horizon }: LabPageProps) {
  const s = snapshot
  return (
    <div className="overview" data-testid="page-overview">
      <div className="overview-controls">
        <ControlsPanel config={s.config} defaults={s.kafkaStreamsDefaults} send={send} unavailable={s.unavailable} />
      </div>
      <div className="overview-center">
        <ChartsPanel
          series={s.series}
          markers={s.markers}
          startedAtMs={s.startedAtMs}
          commitIntervalMs={s.config['commit.interval.ms']}
          chartHeight={170}
        />
        <PipelinePanel
          tasks={s.tasks}
          stopped={s.stoppedTasks ?? NO_STOPPED}
          traces={s.traces}
          nowMs={s.atMs}
          tracesPerTask={1}
        />
      </div>
      <div className="overview-side">
        <WorkersPanel workers={s.workers} send={send} killAtStep={s.unavailable?.killAtStep} />
        <RecoveryPanel recoveries={s.recoveries} startedAtMs={s.startedAtMs} nowMs={s.atMs} latest={1} />
        <CorrectnessPanel
          correctness={s.correctness}
          guarantee={s.config['processing.guarantee']}
          startedAtMs={s.startedAtMs}
        />
        <TxnStrip transactions={s.transactions} totals={s.txnTotals} />
        <JournalTail entries={entries} horizon={horizon} />
      </div>
    </div>
  )
}

/** The seven scenarios and the evidence each finished run leaves. */
export function ScenariosPageView({ snapshot: s, send }: LabPageProps) {
  return (
    <div className="page-stack" data-testid="page-scenarios">
      <ScenariosPanel
        unavailable={s.unavailable?.scenarios}
        scenarios={s.scenarios ?? NO_SCENARIOS}
        scenario={s.scenario ?? null}
        send={send}
        nowMs={s.scenario?.status === 'running' ? s.atMs : 0}
      />
      <EvidencePanel cards={s.evidence ?? NO_EVIDENCE} send={send} />
    </div>
  )
}

/** Every transaction: the lanes per producer, the history, the coordinator's view, the producers. */
export function TransactionsPageView({ snapshot: s, send, held }: LabPageProps) {
  return (
    <div className="page-stack" data-testid="page-transactions">
      {/* The lanes with the few latest rows; the history below holds every row, filtered and exported. */}
      <TransactionsPanel
        transactions={s.transactions}
        totals={s.txnTotals}
        startedAtMs={s.startedAtMs}
        nowMs={s.atMs}
        historyRows={6}
      />
      <TransactionHistoryView stats={s.txnStats} heldAtMs={held ? s.atMs : null} />
      <TransactionsView view={s.transactionsView} send={send} />
      <ProducersView producers={s.producers ?? NO_PRODUCERS} startedAtMs={s.startedAtMs} nowMs={s.atMs} />
    </div>
  )
}

/** Recovery after each kill, the consumer group, and the brokers where the lab runs on a cluster. */
export function RecoveryPageView({ snapshot: s, send }: LabPageProps) {
  return (
    <div className="page-stack" data-testid="page-recovery">
      <RecoveryPanel recoveries={s.recoveries} startedAtMs={s.startedAtMs} nowMs={s.atMs} />
      <WorkersPanel workers={s.workers} send={send} killAtStep={s.unavailable?.killAtStep} />
      {s.brokers ? <BrokerCards brokers={s.brokers} send={send} /> : null}
      <GroupView group={s.group} startedAtMs={s.startedAtMs} />
    </div>
  )
}

/** The topics partition by partition: offsets, the log record by record, the messages, the duplicates. */
export function PartitionsPageView({ snapshot: s, send }: LabPageProps) {
  return (
    <div className="page-stack" data-testid="page-partitions">
      <PartitionsTable rows={s.partitions} />
      <PartitionLogView log={s.partitionLog ?? null} partitions={s.config.partitions} send={send} />
      <MessageBrowser partitions={s.config.partitions} />
      <div className="page-pair">
        <DuplicateLedger
          entries={s.duplicateLedger ?? NO_LEDGER}
          guarantee={s.config['processing.guarantee']}
          correctness={s.correctness}
        />
        <RecordTraceView traces={s.traces} startedAtMs={s.startedAtMs} />
      </div>
      <Panel
        title="Poison records"
        hint="Records the deserializer cannot read, appended to the input: the handler decides what meets them"
        testId="poison-panel"
        className="poison-panel"
      >
        <PoisonControls
          handler={s.config['default.deserialization.exception.handler']}
          deadLetters={s.totals.deadLetters}
          send={send}
          failUnavailable={s.unavailable?.failHandler}
        />
      </Panel>
    </div>
  )
}

/** The journal, with its filters; each line holds the whole lab on its moment. */
export function JournalPageView({ entries, horizon, journalUnavailable, journalError, onShow }: LabPageProps) {
  return (
    <div className="page-stack" data-testid="page-journal">
      <EventLogPanel
        entries={entries}
        horizon={horizon}
        unavailable={journalUnavailable}
        error={journalError}
        onShow={onShow}
      />
      <p className="muted small">
        Every figure and view is a fold over this journal: <Link href="/">the overview</Link> shows its last lines.
      </p>
    </div>
  )
}
