'use client'
import { useState } from 'react'
import { DEFAULT_SWEEP_INTERVALS, SWEEP_LIMITS, type SweepBackend, type SweepRequest } from '../../lib/experiment-protocol.ts'
import { PROCESSING_GUARANTEES, type ProcessingGuarantee } from '../../lib/streams-config.ts'

export interface SweepFormProps {
  running: boolean
  backends: readonly string[]
  onStart: (request: SweepRequest) => void
  onCancel: () => void
}

const toggle = <T,>(xs: T[], x: T): T[] => (xs.includes(x) ? xs.filter((y) => y !== x) : [...xs, x])

export function SweepForm({ running, backends, onStart, onCancel }: SweepFormProps) {
  const [intervals, setIntervals] = useState<number[]>([10, 100, 1000])
  const [guarantees, setGuarantees] = useState<ProcessingGuarantee[]>(['at_least_once', 'exactly_once'])
  const [repeat, setRepeat] = useState(1)
  const [backend, setBackend] = useState<SweepBackend>('embedded')
  const [label, setLabel] = useState('')
  const valid = intervals.length > 0 && guarantees.length > 0 && repeat >= SWEEP_LIMITS.repeat.min && repeat <= SWEEP_LIMITS.repeat.max
  return (
    <form
      className="sweep-form"
      data-testid="sweep-form"
      onSubmit={(e) => {
        e.preventDefault()
        if (!valid || running) return
        onStart({ intervals: [...intervals].sort((a, b) => a - b), guarantees, repeat, backend, ...(label.trim() ? { label: label.trim() } : {}) })
      }}
    >
      <fieldset>
        <legend>commit.interval.ms</legend>
        <div className="chips">
          {DEFAULT_SWEEP_INTERVALS.map((ms) => (
            <label key={ms} className={`chip ${intervals.includes(ms) ? 'chip-on' : ''}`}>
              <input type="checkbox" checked={intervals.includes(ms)} disabled={running} onChange={() => setIntervals(toggle(intervals, ms))} data-testid={`interval-${ms}`} />
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
              <input type="checkbox" checked={guarantees.includes(g)} disabled={running} onChange={() => setGuarantees(toggle(guarantees, g))} data-testid={`guarantee-${g}`} />
              {g}
            </label>
          ))}
        </div>
      </fieldset>
      <div className="sweep-form-row">
        <label>
          repetitions{' '}
          <input className="field" type="number" min={SWEEP_LIMITS.repeat.min} max={SWEEP_LIMITS.repeat.max} value={repeat} disabled={running} onChange={(e) => setRepeat(Number(e.target.value))} data-testid="repeat" />
        </label>
        <label>
          backend{' '}
          <select className="field" value={backend} disabled={running} onChange={(e) => setBackend(e.target.value as SweepBackend)} data-testid="backend-select">
            <option value="embedded">embedded</option>
            <option value="kafka" disabled={!backends.includes('kafka')}>
              kafka{backends.includes('kafka') ? '' : ' (not available yet)'}
            </option>
          </select>
        </label>
        <label className="grow">
          label <input className="field" type="text" maxLength={80} value={label} disabled={running} placeholder="optional" onChange={(e) => setLabel(e.target.value)} />
        </label>
      </div>
      <div className="sweep-form-row">
        <button type="submit" disabled={!valid || running} data-testid="start-sweep">
          ▶ run sweep
        </button>
        <button type="button" className="danger" disabled={!running} onClick={onCancel} data-testid="cancel-sweep">
          cancel
        </button>
        <span className="muted small">
          {intervals.length * guarantees.length * repeat} repetitions; each: a saturated throughput window, a steady-load latency window, one kill
        </span>
      </div>
    </form>
  )
}
