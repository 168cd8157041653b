'use client'
import { useState } from 'react'
import {
  DEFAULT_SWEEP_INTERVALS,
  DEFAULT_SWEEP_MAX_RUNS,
  SWEEP_LIMITS,
  type SweepBackend,
  type SweepRequest,
} from '../../lib/experiment-protocol.ts'
import { PROCESSING_GUARANTEES, type ProcessingGuarantee } from '../../lib/streams-config.ts'

export interface SweepFormProps {
  running: boolean
  backends: readonly string[]
  /** Why a backend cannot be chosen (what the server says). */
  unavailable: Readonly<Record<string, string>>
  onStart: (request: SweepRequest) => void
  onCancel: () => void
}

const toggle = <T,>(xs: T[], x: T): T[] => (xs.includes(x) ? xs.filter((y) => y !== x) : [...xs, x])

/** What the picker says of kafka when it cannot be chosen: how to enable it. */
export function kafkaOptionText(backends: readonly string[], reason: string | undefined): string {
  if (backends.includes('kafka')) return 'kafka'
  if (reason === undefined || /KAFKA_BROKERS=/.test(reason)) return 'Kafka: set KAFKA_BROKERS to enable'
  return "Kafka: the server's Kafka settings are invalid"
}

/** "6 runs", or "6 to 54 runs" for a sweep repeated until precise. */
export function plannedRunsText(cells: number, repeat: number, maxRuns: number | null): string {
  const lo = cells * repeat
  if (maxRuns === null || maxRuns === repeat) return `${lo} run${lo === 1 ? '' : 's'}`
  return `${lo} to ${cells * maxRuns} runs`
}

export function SweepForm({ running, backends, unavailable, onStart, onCancel }: SweepFormProps) {
  const [intervals, setIntervals] = useState<number[]>([10, 100, 1000])
  const [guarantees, setGuarantees] = useState<ProcessingGuarantee[]>(['at_least_once', 'exactly_once'])
  const [repeat, setRepeat] = useState(1)
  const [backend, setBackend] = useState<SweepBackend>('embedded')
  const [label, setLabel] = useState('')
  const [untilPrecise, setUntilPrecise] = useState(false)
  const maxRuns = untilPrecise ? Math.max(repeat, DEFAULT_SWEEP_MAX_RUNS) : null
  const valid =
    intervals.length > 0 &&
    guarantees.length > 0 &&
    repeat >= SWEEP_LIMITS.repeat.min &&
    repeat <= SWEEP_LIMITS.repeat.max
  return (
    <form
      className="sweep-form"
      data-testid="sweep-form"
      onSubmit={(e) => {
        e.preventDefault()
        if (!valid || running) return
        onStart({
          intervals: [...intervals].sort((a, b) => a - b),
          guarantees,
          repeat,
          ...(maxRuns !== null ? { maxRuns } : {}),
          backend,
          ...(label.trim() ? { label: label.trim() } : {}),
        })
      }}
    >
      <fieldset>
        <legend>commit.interval.ms</legend>
        <div className="chips">
          {DEFAULT_SWEEP_INTERVALS.map((ms) => (
            <label key={ms} className={`chip ${intervals.includes(ms) ? 'chip-on' : ''}`}>
              <input
                type="checkbox"
                checked={intervals.includes(ms)}
                disabled={running}
                onChange={() => setIntervals(toggle(intervals, ms))}
                data-testid={`interval-${ms}`}
              />
              {ms}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>guarantees</legend>
        <div className="chips">
          {PROCESSING_GUARANTEES.map((g) => (
            <label key={g} className={`chip mono ${guarantees.includes(g) ? 'chip-on' : ''}`}>
              <input
                type="checkbox"
                checked={guarantees.includes(g)}
                disabled={running}
                onChange={() => setGuarantees(toggle(guarantees, g))}
                data-testid={`guarantee-${g}`}
              />
              {g}
            </label>
          ))}
        </div>
      </fieldset>
      <div className="sweep-form-row">
        <label>
          runs per cell{untilPrecise ? ', at least' : ''}{' '}
          <input
            className="field"
            type="number"
            min={SWEEP_LIMITS.repeat.min}
            max={SWEEP_LIMITS.repeat.max}
            value={repeat}
            disabled={running}
            onChange={(e) => setRepeat(Number(e.target.value))}
            data-testid="repeat"
          />
        </label>
        <UntilPrecise
          checked={untilPrecise}
          running={running}
          cap={Math.max(repeat, DEFAULT_SWEEP_MAX_RUNS)}
          onToggle={() => {
            if (!untilPrecise && repeat < 6) setRepeat(6)
            setUntilPrecise(!untilPrecise)
          }}
        />
        <label>
          backend{' '}
          <select
            className="field"
            value={backend}
            disabled={running}
            onChange={(e) => setBackend(e.target.value as SweepBackend)}
            data-testid="backend-select"
          >
            <option value="embedded">embedded</option>
            <option value="kafka" disabled={!backends.includes('kafka')} title={unavailable.kafka}>
              {kafkaOptionText(backends, unavailable.kafka)}
            </option>
          </select>
        </label>
        <LabelField label={label} running={running} onChange={setLabel} />
      </div>
      <div className="sweep-form-row">
        <button type="submit" disabled={!valid || running} data-testid="start-sweep">
          ▶ run sweep
        </button>
        <button type="button" className="danger" disabled={!running} onClick={onCancel} data-testid="cancel-sweep">
          cancel
        </button>
        <span className="muted small">
          {plannedRunsText(intervals.length * guarantees.length, repeat, maxRuns)}; each: a saturated throughput window,
          a steady-load latency window, one kill
        </span>
      </div>
    </form>
  )
}

const PRECISE_TITLE =
  'cells are run in turn; each stops once the 95% intervals of its throughput and recovery time are within ±10% of ' +
  'their medians'

/** Repeat each cell beyond its runs until its 95% intervals are within ±10%, up to a cap. */
function UntilPrecise({
  checked,
  running,
  cap,
  onToggle: toggle,
}: {
  checked: boolean
  running: boolean
  cap: number
  onToggle: () => void
}) {
  return (
    <label title={PRECISE_TITLE}>
      <input type="checkbox" checked={checked} disabled={running} onChange={toggle} data-testid="until-precise" /> more
      until ±10% (at most {cap})
    </label>
  )
}

function LabelField({
  label,
  running,
  onChange,
}: {
  label: string
  running: boolean
  onChange: (label: string) => void
}) {
  return (
    <label className="grow">
      label{' '}
      <input
        className="field"
        type="text"
        maxLength={80}
        value={label}
        disabled={running}
        placeholder="optional"
        onChange={(e) => onChange(e.target.value)}
      />
    </label>
  )
}
