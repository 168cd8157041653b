import { memo, useEffect, useId, useRef, useState } from 'react'
import { LIMITS, type LabConfig, type Unavailable } from '../lib/lab-protocol.ts'
import {
  AT_MOST_ONCE_NOTE,
  isExactlyOnce,
  isTeachingMode,
  PROCESSING_GUARANTEES,
  type ProcessingGuarantee,
} from '../lib/streams-config.ts'
import { fmtMs } from './format.ts'
import { COMMIT_INTERVAL_SCALE, fromPosition, toPercent, toPosition } from './log-scale.ts'
import { Panel } from './panel.tsx'
import { Segmented } from './segmented.tsx'
import { useCommand, type CommandState, type SendCommand } from './use-command.ts'

export interface ControlsPanelProps {
  config: LabConfig
  defaults: { commitIntervalMs: Record<ProcessingGuarantee, number> }
  send: SendCommand
  /** Controls this backend cannot offer, with the reason (shown, not hidden). */
  unavailable?: Unavailable
}

const NOTHING_UNAVAILABLE: Unavailable = {}

const RATE_PRESETS = [
  { value: 1, label: '1/s', title: 'slow motion: one record a second, watch it move through the steps' },
  { value: 10, label: '10/s' },
  { value: 100, label: '100/s' },
  { value: 1000, label: '1k/s' },
  { value: 5000, label: '5k/s' },
  { value: 20_000, label: '20k/s' },
] as const

function CommandError({ state }: { state: CommandState }) {
  return (
    <p className="control-error" role="status" aria-live="polite">
      {state.error ? `⚠ ${state.error}` : ''}
    </p>
  )
}

function GuaranteeControl({
  value,
  send,
  unavailable,
}: {
  value: ProcessingGuarantee
  send: SendCommand
  unavailable: Unavailable
}) {
  const [run, state] = useCommand(send)
  const why = (g: ProcessingGuarantee) => (g === 'exactly_once_v2' ? unavailable.exactlyOnceV2 : undefined)
  const titleOf = (g: ProcessingGuarantee) =>
    why(g) ?? (isTeachingMode(g) ? `at_most_once: ${AT_MOST_ONCE_NOTE}` : undefined)
  return (
    <fieldset className="control">
      <legend>processing.guarantee</legend>
      <Segmented
        label="processing.guarantee"
        options={PROCESSING_GUARANTEES.map((g) => ({ value: g, title: titleOf(g), disabled: why(g) !== undefined }))}
        value={value}
        style={{ flexWrap: 'wrap' }}
        testId={(g) => `guarantee-${g}`}
        disabled={state.pending}
        onSelect={(g) => run('setConfig', { 'processing.guarantee': g })}
      />
      {isTeachingMode(value) ? (
        <p className="muted small" data-testid="teaching-mode">
          at_most_once is {AT_MOST_ONCE_NOTE}. A crash after the commit loses the polled records; none is redone.
        </p>
      ) : null}
      {unavailable.exactlyOnceV2 ? (
        <p className="muted small unavailable" data-testid="unavailable-eos-v2">
          exactly_once_v2 is unavailable here:{' '}
          {unavailable.exactlyOnceV2.replace(/^exactly_once_v2 is unavailable on the Kafka backend: /, '')}
        </p>
      ) : null}
      <CommandError state={state} />
    </fieldset>
  )
}

function CommitIntervalControl({
  value,
  guarantee,
  defaults,
  send,
}: {
  value: number
  guarantee: ProcessingGuarantee
  defaults: ControlsPanelProps['defaults']
  send: SendCommand
}) {
  const id = useId()
  const [run, state] = useCommand(send)
  const [draft, setDraft] = useState<number | null>(null)
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current)
    },
    [],
  )
  const shown = draft ?? value
  const scale = COMMIT_INTERVAL_SCALE
  const commit = (ms: number) => {
    setDraft(ms)
    if (timer.current) clearTimeout(timer.current)
    timer.current = setTimeout(() => {
      void run('setConfig', { 'commit.interval.ms': ms }).then(() => setDraft(null))
    }, 250)
  }
  const ksDefault = defaults.commitIntervalMs[guarantee]
  const marks = [
    {
      ms: defaults.commitIntervalMs.exactly_once,
      label: `exactly_once default ${fmtMs(defaults.commitIntervalMs.exactly_once)}`,
    },
    {
      ms: defaults.commitIntervalMs.at_least_once,
      label: `at_least_once default ${fmtMs(defaults.commitIntervalMs.at_least_once)}`,
    },
  ]
  return (
    <div className="control">
      <label htmlFor={id} className="control-label">
        commit.interval.ms <output className="num value-badge">{fmtMs(shown)}</output>
      </label>
      <input
        id={id}
        type="range"
        min={0}
        max={scale.steps}
        step={1}
        value={Number.isFinite(shown) ? toPosition(scale, shown) : 0}
        aria-valuetext={fmtMs(shown)}
        data-testid="commit-interval"
        onChange={(e) => commit(fromPosition(scale, Number(e.currentTarget.value)))}
      />
      <div className="scale-marks" aria-hidden="true">
        {marks.map((m) => (
          <span
            key={m.label}
            className={`scale-mark${toPercent(scale, m.ms) > 90 ? ' scale-mark-end' : ''}`}
            style={{ left: `${toPercent(scale, m.ms)}%` }}
            title={`Kafka Streams' ${m.label}`}
          >
            <span className="tick" />
            <span className="tick-label">{m.ms >= 1000 ? `${m.ms / 1000} s` : `${m.ms} ms`}</span>
          </span>
        ))}
      </div>
      <div className="control-row">
        <span className="muted small">log scale · ticks: Kafka Streams&apos; defaults</span>
        <button type="button" className="link-button" disabled={shown === ksDefault} onClick={() => commit(ksDefault)}>
          use default ({fmtMs(ksDefault)})
        </button>
      </div>
      <CommandError state={state} />
    </div>
  )
}

/** A number input's text: never "null" or "NaN" (the browser warns it cannot parse them), empty when unknown. */
export function numberText(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : ''
}

/** The rate typed in, or null while the box is empty or holds no number. */
export function typedRate(text: string): number | null {
  if (text.trim() === '') return null
  const n = Number(text)
  return Number.isFinite(n) ? n : null
}

/** `value` is null while the lab reports no rate (between runtimes): the box is then empty, not "null". */
function InputRateControl({ value, send }: { value: number | null; send: SendCommand }) {
  const id = useId()
  const [run, state] = useCommand(send)
  const [text, setText] = useState(numberText(value))
  useEffect(() => setText(numberText(value)), [value])
  const typed = typedRate(text)
  const apply = () => {
    if (typed !== null && typed !== value) void run('setConfig', { inputRatePerSec: typed })
  }
  return (
    <div className="control">
      <label htmlFor={id} className="control-label">
        input rate <span className="muted">records/s</span>
      </label>
      <fieldset className="segmented wrap" aria-label="input rate presets">
        {RATE_PRESETS.map((p) => (
          <button
            key={p.value}
            type="button"
            aria-pressed={p.value === value}
            className={p.value === value ? 'on' : ''}
            title={'title' in p ? p.title : undefined}
            data-testid={`rate-${p.value}`}
            onClick={() => p.value !== value && run('setConfig', { inputRatePerSec: p.value })}
          >
            {p.value === 1 ? '1/s slow' : p.label}
          </button>
        ))}
      </fieldset>
      <div className="control-row">
        <input
          id={id}
          className="num text-input"
          type="number"
          min={LIMITS.inputRatePerSec.min}
          max={LIMITS.inputRatePerSec.max}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Enter' && apply()}
        />
        <button type="button" onClick={apply} disabled={typed === null || typed === value}>
          Set
        </button>
      </div>
      <CommandError state={state} />
    </div>
  )
}

/** What the enable.idempotence box means as it stands: the hint follows the box. */
export function idempotenceHint(state: 'forced' | 'on' | 'off', guarantee: ProcessingGuarantee): string {
  if (state === 'forced') return `${guarantee} forces enable.idempotence=true, as Kafka Streams does.`
  if (state === 'on') return 'On: the broker drops a retried produce by producer id, epoch and sequence number.'
  return 'Off: a retried produce after a lost ack writes the record twice.'
}

function IdempotenceControl({
  value,
  guarantee,
  send,
}: {
  value: boolean
  guarantee: ProcessingGuarantee
  send: SendCommand
}) {
  const id = useId()
  const [run, state] = useCommand(send)
  const locked = isExactlyOnce(guarantee)
  return (
    <div className="control">
      <div className="control-row">
        <input
          id={id}
          type="checkbox"
          checked={locked ? true : value}
          disabled={locked || state.pending}
          data-testid="idempotence"
          aria-describedby={`${id}-why`}
          onChange={(e) => run('setConfig', { 'enable.idempotence': e.currentTarget.checked })}
        />
        <label htmlFor={id} className="control-label">
          enable.idempotence
        </label>
      </div>
      <p id={`${id}-why`} className="muted small">
        {idempotenceHint(locked ? 'forced' : value ? 'on' : 'off', guarantee)}
      </p>
      <CommandError state={state} />
    </div>
  )
}

function WorkerCountControl({ value, send }: { value: number; send: SendCommand }) {
  const [run, state] = useCommand(send)
  const set = (n: number) => run('setConfig', { workers: n })
  return (
    <div className="control">
      <span className="control-label" id="workers-count-label">
        workers
      </span>
      <fieldset className="stepper" aria-labelledby="workers-count-label">
        <button
          type="button"
          aria-label="fewer workers"
          disabled={value <= LIMITS.workers.min || state.pending}
          onClick={() => set(value - 1)}
        >
          −
        </button>
        <output className="num" data-testid="workers-count">
          {value}
        </output>
        <button
          type="button"
          aria-label="more workers"
          disabled={value >= LIMITS.workers.max || state.pending}
          onClick={() => set(value + 1)}
        >
          +
        </button>
      </fieldset>
      <CommandError state={state} />
    </div>
  )
}

const RESET_TITLE =
  'a fresh lab with the defaults (exactly_once, its default commit.interval.ms, the default rate and worker count), ' +
  'not the current settings'

function FaultControls({ send, unavailable }: { send: SendCommand; unavailable: Unavailable }) {
  const [runDrop, dropState] = useCommand(send)
  const [runReset, resetState] = useCommand(send)
  return (
    <div className="control">
      <span className="control-label">faults</span>
      <div className="control-row">
        <button
          type="button"
          className="warn"
          data-testid="drop-ack"
          disabled={dropState.pending || unavailable.dropAcks !== undefined}
          title={unavailable.dropAcks}
          onClick={() => runDrop('dropAcks', { count: 1 })}
        >
          Drop next ack
        </button>
        <button
          type="button"
          data-testid="reset"
          disabled={resetState.pending}
          title={RESET_TITLE}
          onClick={() => runReset('reset', {})}
        >
          Reset lab
        </button>
      </div>
      {unavailable.dropAcks ? (
        <p className="muted small unavailable" data-testid="unavailable-drop-acks">
          {unavailable.dropAcks}
        </p>
      ) : null}
      <CommandError state={dropState.error ? dropState : resetState} />
    </div>
  )
}

export const ControlsPanel = memo(function ControlsPanel({
  config,
  defaults,
  send,
  unavailable = NOTHING_UNAVAILABLE,
}: ControlsPanelProps) {
  const g = config['processing.guarantee']
  return (
    <Panel
      title="Controls"
      hint="Kafka Streams settings, applied live; the workers restart their tasks"
      testId="controls"
    >
      <GuaranteeControl value={g} send={send} unavailable={unavailable} />
      <CommitIntervalControl value={config['commit.interval.ms']} guarantee={g} defaults={defaults} send={send} />
      <InputRateControl value={config.inputRatePerSec} send={send} />
      <IdempotenceControl value={config['enable.idempotence']} guarantee={g} send={send} />
      <WorkerCountControl value={config.workers} send={send} />
      <FaultControls send={send} unavailable={unavailable} />
    </Panel>
  )
})
