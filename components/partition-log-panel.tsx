import { memo, useState } from 'react'
import type { LogCell, PartitionLogView as PartitionLog } from '../lib/lab-protocol.ts'
import { fmtInt } from './format.ts'
import { Panel } from './panel.tsx'
import { Segmented, type SegmentedOption } from './segmented.tsx'
import { useCommand, type SendCommand } from './use-command.ts'
import type { LabTopicRole } from '../lib/log-range.ts'

export interface PartitionLogViewProps {
  log: PartitionLog | null
  /** Partitions per topic, for the selector. */
  partitions: number
  send: SendCommand
}

/** Cells drawn, always: a partition with fewer records shows empty slots, so nothing moves as records arrive. */
export const LOG_SLOTS = 120

export type TopicKind = LabTopicRole
const TOPIC_KINDS: TopicKind[] = ['input', 'output', 'changelog']

/** Which offsets the lab sends: the newest, or those ending a few records after the latest ABORT marker. */
export type LogWindow = 'latest' | 'last-abort'
const LOG_WINDOWS: SegmentedOption<LogWindow>[] = [
  { value: 'latest', label: 'latest', title: `the newest ${LOG_SLOTS} offsets` },
  {
    value: 'last-abort',
    label: 'around last abort',
    title:
      `the ${LOG_SLOTS} offsets ending a few records after the partition's latest ABORT marker ` +
      '(the newest ones while it has none)',
  },
]

/** Which of the lab's three topics a topic name is. */
export function topicKind(topic: string): TopicKind {
  if (topic.includes('changelog')) return 'changelog'
  if (topic === 'input' || topic.endsWith('-input')) return 'input'
  return 'output'
}

export type BoundaryKind = 'lso' | 'hw' | 'rc' | 'ru'

export interface Boundary {
  kind: BoundaryKind
  label: string
  offset: number
  /** Slot whose left edge the boundary sits on; LOG_SLOTS means the right edge of the last slot. */
  slot: number
  /** The offset lies before the first cell drawn (the boundary is off the left of the window). */
  before: boolean
}

const BOUNDARY_LABEL: Record<BoundaryKind, string> = {
  lso: 'LSO',
  hw: 'HW',
  rc: 'read_committed',
  ru: 'read_uncommitted',
}

/** Where an offset boundary falls among the cells drawn: on the left edge of the first cell at or past it. */
export function boundarySlot(offset: number, cells: LogCell[]): { slot: number; before: boolean } {
  if (cells.length === 0 || offset < cells[0]!.offset) return { slot: 0, before: cells.length > 0 }
  const i = cells.findIndex((c) => c.offset >= offset)
  return { slot: i === -1 ? cells.length : i, before: false }
}

/** The log's two boundaries and the two consumers' positions, placed among the cells. */
export function boundaries(log: PartitionLog, cells: LogCell[]): Boundary[] {
  const at: [BoundaryKind, number][] = [
    ['lso', log.lastStableOffset],
    ['hw', log.highWatermark],
    ['rc', log.readCommittedPosition],
    ['ru', log.readUncommittedPosition],
  ]
  return at.map(([kind, offset]) => ({ kind, label: BOUNDARY_LABEL[kind], offset, ...boundarySlot(offset, cells) }))
}

function cellClass(c: LogCell): string {
  if (c.control) return `log-cell log-control log-${c.control.toLowerCase()}`
  return `log-cell log-${c.outcome ?? 'plain'}`
}

function cellTitle(c: LogCell): string {
  const what = c.control
    ? `${c.control} marker`
    : c.outcome === null
      ? 'non-transactional record'
      : `record of a ${c.outcome} transaction`
  const key = c.key === null ? '' : ` · key ${c.key}`
  const producer =
    c.producerId < 0 ? '' : ` · producer ${c.producerId} epoch ${c.epoch}${c.sequence >= 0 ? ` seq ${c.sequence}` : ''}`
  const source = c.source ? ` · from input-${c.source.partition}@${c.source.offset}` : ''
  return `offset ${c.offset}: ${what}${key}${producer}${source}`
}

/** The HW tag goes a line higher when the LSO is a single cell before it: their tags would overlap. */
export function raiseHighWatermark(marks: Boundary[]): boolean {
  const lso = marks.find((m) => m.kind === 'lso')
  const hw = marks.find((m) => m.kind === 'hw')
  return !!lso && !!hw && hw.slot - lso.slot === 1
}

function Marks({ marks, edge, raised }: { marks: Boundary[]; edge: 'left' | 'right'; raised: boolean }) {
  const log = marks.filter((m) => m.kind === 'lso' || m.kind === 'hw')
  const readers = marks.filter((m) => m.kind === 'rc' || m.kind === 'ru')
  const kinds = log.map((m) => m.kind).join('-')
  const lifted = raised && log.length === 1 && log[0]!.kind === 'hw' ? ' log-mark-raised' : ''
  return (
    <>
      {log.length ? (
        <span
          className={`log-mark log-mark-${edge} log-mark-${kinds}${lifted}`}
          data-testid="log-marker"
          data-kinds={log.map((m) => m.kind).join(' ')}
        >
          <span className="log-mark-tag">
            {log.map((m) => (m.before ? `← ${m.label} ${m.offset}` : m.label)).join(' · ')}
          </span>
        </span>
      ) : null}
      {readers.length ? (
        <span
          className={`log-reader log-reader-${edge}${readers.some((m) => m.kind === 'rc') ? '' : ' log-reader-ru'}`}
          data-testid="log-marker"
          data-kinds={readers.map((m) => m.kind).join(' ')}
        >
          <span className="log-reader-tag">
            ▲ {readers.map((m) => (m.before ? `← ${m.label} ${m.offset}` : m.label)).join(' · ')}
          </span>
        </span>
      ) : null}
    </>
  )
}

function PartitionSelector({
  log,
  partitions,
  send,
  logWindow,
  onWindow,
}: {
  log: PartitionLog | null
  partitions: number
  send: SendCommand
  logWindow: LogWindow | null
  onWindow: (w: LogWindow) => void
}) {
  const [run, state] = useCommand(send)
  const kind = log ? topicKind(log.topic) : null
  const partition = log?.partition ?? 0
  const setWindow = (w: LogWindow) => {
    void run('selectPartition', {
      topic: kind ?? 'output',
      partition: Math.min(partition, Math.max(0, partitions - 1)),
      window: w,
    }).then((r) => r.ok && onWindow(w))
  }
  return (
    // Two fixed rows: the topic; then which offsets and the partition.
    <div className="log-selector" style={{ flexDirection: 'column', alignItems: 'flex-end', gap: 6 }}>
      <Segmented
        label="topic"
        options={TOPIC_KINDS.map((t) => ({ value: t }))}
        value={kind}
        testId={(t) => `log-topic-${t}`}
        disabled={state.pending}
        onSelect={(t) =>
          run('selectPartition', {
            topic: t,
            partition: Math.min(partition, Math.max(0, partitions - 1)),
            window: logWindow ?? 'latest',
          })
        }
      />
      <div style={{ display: 'flex', alignItems: 'center', gap: 10, whiteSpace: 'nowrap' }}>
        <Segmented
          label="which offsets"
          options={LOG_WINDOWS}
          value={logWindow}
          testId={(w) => `log-window-${w}`}
          disabled={state.pending}
          onSelect={setWindow}
          style={{ flexShrink: 0 }}
        />
        <label className="small">
          partition{' '}
          <select
            value={partition}
            data-testid="log-partition"
            disabled={state.pending}
            onChange={(e) =>
              run('selectPartition', {
                topic: kind ?? 'output',
                partition: Number(e.currentTarget.value),
                window: logWindow ?? 'latest',
              })
            }
          >
            {Array.from({ length: Math.max(1, partitions) }, (_, p) => p).map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
      </div>
      {state.error ? (
        <span className="control-error" role="status">
          ⚠ {state.error}
        </span>
      ) : null}
    </div>
  )
}

/** The partition's offsets: log start, LSO, HW, what is open, and where the two consumers stand. */
function LogFigures({ log }: { log: NonNullable<PartitionLogViewProps['log']> }) {
  return (
    <dl className="log-figures num" data-testid="log-figures">
      <div>
        <dt>partition</dt>
        <dd className="mono" data-testid="log-partition-name">
          {log.topic}-{log.partition}
        </dd>
      </div>
      <div>
        <dt>log start</dt>
        <dd>{fmtInt(log.logStartOffset)}</dd>
      </div>
      <div>
        <dt title="last stable offset">LSO</dt>
        <dd data-testid="log-figure-lso">{fmtInt(log.lastStableOffset)}</dd>
      </div>
      <div>
        <dt title="high watermark">HW</dt>
        <dd data-testid="log-figure-hw">{fmtInt(log.highWatermark)}</dd>
      </div>
      <div>
        <dt title="HW minus LSO: written, not yet readable by read_committed">open</dt>
        <dd className={log.highWatermark > log.lastStableOffset ? 'warn-text' : ''}>
          {fmtInt(log.highWatermark - log.lastStableOffset)}
        </dd>
      </div>
      <div>
        <dt>read_committed at</dt>
        <dd data-testid="log-figure-rc">{fmtInt(log.readCommittedPosition)}</dd>
      </div>
      <div>
        <dt>read_uncommitted at</dt>
        <dd data-testid="log-figure-ru">{fmtInt(log.readUncommittedPosition)}</dd>
      </div>
    </dl>
  )
}

interface LogGridProps {
  log: NonNullable<PartitionLogViewProps['log']>
  cells: NonNullable<PartitionLogViewProps['log']>['cells']
  bySlot: Map<number, Boundary[]>
  raised: ReturnType<typeof raiseHighWatermark>
  logWindow: LogWindow | 'at'
}

/** What the cells' colours and letters mean. */
function LogLegend() {
  return (
    <div className="legend small muted">
      <span className="log-cell log-committed" /> committed <span className="log-cell log-pending" /> pending (open
      transaction) <span className="log-cell log-aborted" /> aborted <span className="log-cell log-plain" />{' '}
      non-transactional <span className="log-cell log-control log-commit">C</span> COMMIT marker{' '}
      <span className="log-cell log-control log-abort">A</span> ABORT marker · hover a cell for its key, producer and
      source
    </div>
  )
}

/** One cell per offset slot, with the LSO/HW/consumer marks at their edges. */
function LogGrid({ log, cells, bySlot, raised, logWindow }: LogGridProps) {
  const shown =
    logWindow === 'latest'
      ? `the latest ${LOG_SLOTS} offsets`
      : logWindow === 'at'
        ? `${LOG_SLOTS} offsets from ${log.fromOffset ?? 0}`
        : `${LOG_SLOTS} offsets around the latest ABORT marker`
  return (
    <div className="log-scroll">
      {/* biome-ignore lint/a11y/useSemanticElements: 120 slots laid out by CSS grid; a <ul> without list
          markers loses its list semantics in WebKit, the explicit role keeps them */}
      <div
        className="log-grid"
        role="list"
        aria-label={`${shown} of ${log.topic}-${log.partition}`}
        data-testid="log-grid"
        data-window={logWindow}
        data-from={log.fromOffset}
      >
        {Array.from({ length: LOG_SLOTS }, (_, i) => {
          const c = cells[i]
          const here = bySlot.get(i)
          const after = i === LOG_SLOTS - 1 ? bySlot.get(LOG_SLOTS) : undefined
          return (
            /* biome-ignore lint/a11y/useSemanticElements lint/suspicious/noArrayIndexKey: a slot of the grid's
               list above; its place in the grid is its identity */
            <div key={i} className="log-slot" role="listitem">
              {c ? (
                <span
                  className={cellClass(c)}
                  title={cellTitle(c)}
                  data-testid="log-cell"
                  data-offset={c.offset}
                  data-outcome={c.outcome ?? 'none'}
                  data-control={c.control ?? 'none'}
                >
                  {c.control ? c.control[0] : ''}
                </span>
              ) : (
                <span className="log-cell log-empty" />
              )}
              {here ? <Marks marks={here} edge="left" raised={raised} /> : null}
              {after ? <Marks marks={after} edge="right" raised={raised} /> : null}
            </div>
          )
        })}
      </div>
    </div>
  )
}

/** The records of one partition as cells, with the LSO, the high watermark and where two consumers stand. */
export const PartitionLogView = memo(function PartitionLogView({ log, partitions, send }: PartitionLogViewProps) {
  const [chosen, setLogWindow] = useState<LogWindow>('latest')
  // An evidence card's link shows the offsets from the one it names ('at'); the selector's choice otherwise.
  const logWindow: LogWindow | 'at' = log?.window === 'at' ? 'at' : chosen
  const cells = log ? log.cells.slice(-LOG_SLOTS) : []
  const marks = log ? boundaries(log, cells) : []
  const raised = raiseHighWatermark(marks)
  const bySlot = new Map<number, Boundary[]>()
  for (const m of marks)
    bySlot.set(Math.min(m.slot, LOG_SLOTS), [...(bySlot.get(Math.min(m.slot, LOG_SLOTS)) ?? []), m])
  return (
    <Panel
      title="Partition log"
      hint={
        <>
          One transaction makes three writes: sink records (output), changelog records (state) and offset commits, then
          a COMMIT or ABORT marker in each partition it touched. A read_committed consumer stops at the last stable
          offset (LSO), the start of the oldest open transaction; a read_uncommitted one reads up to the high watermark
          (HW), aborted records included.
        </>
      }
      testId="partition-log"
      id="partition-log"
      className="deep-wide"
      actions={
        <PartitionSelector
          log={log}
          partitions={partitions}
          send={send}
          logWindow={logWindow === 'at' ? null : chosen}
          onWindow={setLogWindow}
        />
      }
    >
      {log?.refusal ? (
        // An old evidence card's link: the running lab's records at those offsets are other records.
        <p className="control-error" role="alert" data-testid="log-refusal">
          ⚠ {log.refusal} Choose a topic, partition or offsets above to see the running lab's records.
        </p>
      ) : log ? (
        <>
          <LogFigures log={log} />
          <LogGrid log={log} cells={cells} bySlot={bySlot} raised={raised} logWindow={logWindow} />
          <LogLegend />
        </>
      ) : (
        <p className="muted empty">The lab has not sent a partition log yet.</p>
      )}
    </Panel>
  )
})
