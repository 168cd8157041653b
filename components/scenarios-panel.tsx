import { memo, type ReactNode, useEffect, useRef } from 'react'
import type { ScenarioView } from '../lib/lab-protocol.ts'
import { fmtMs } from './format.ts'
import { ExpectationList } from './expectation-list.tsx'
import { Panel } from './panel.tsx'
import { useCommand, type SendCommand } from './use-command.ts'

export interface ScenarioSummary {
  name: string
  title: string
  summary: string
}

export interface ScenariosPanelProps {
  scenarios: ScenarioSummary[]
  scenario: ScenarioView | null
  send: SendCommand
  nowMs: number
  /** Why this backend offers no scenarios. */
  unavailable?: string
}

/** The badge's words: a pass with a claim left undecided says so. */
export function statusWord(status: ScenarioView['status'], expectations: readonly { undecided?: string }[]): string {
  if (status === 'passed' && expectations.some((e) => e.undecided !== undefined))
    return 'no claim fails; one is not distinguishable here'
  return STATUS_WORD[status]
}

const STATUS_WORD: Record<ScenarioView['status'], string> = {
  running: 'running',
  passed: 'all expectations hold',
  failed: 'an expectation fails',
  error: 'stopped by an error',
}

/** How close to its end (px) a scrolled box counts as at its end: a line's height, about. */
const AT_END_PX = 24

/** Whether a scrolled box shows its last line. */
export function isAtEnd(box: { scrollTop: number; clientHeight: number; scrollHeight: number }): boolean {
  return box.scrollHeight - box.scrollTop - box.clientHeight < AT_END_PX
}

/**
 * The narrative in a box of bounded height (commit-interval's runs to some thirty lines), kept
 * scrolled to its newest line as lines arrive, so a running scenario shows its progress; a reader
 * who scrolls up to an earlier line stays there until they scroll back to the end.
 */
function NarrativeScroll({ lines, children }: { lines: number; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null)
  const following = useRef(true)
  useEffect(() => {
    const el = box.current
    if (el && lines > 0 && following.current) el.scrollTop = el.scrollHeight
  }, [lines])
  const onScroll = () => {
    if (box.current) following.current = isAtEnd(box.current)
  }
  return (
    /* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box, focusable so a keyboard can scroll it
       (axe: scrollable-region-focusable) */
    <div className="narrative-scroll" ref={box} tabIndex={0} onScroll={onScroll}>
      {children}
    </div>
  )
}

/** "+1.8 s": when a narrative line was said, from the scenario's start. */
export function fmtOffset(ms: number): string {
  return `+${(ms / 1000).toFixed(1)} s`
}

const ScenarioRun = memo(function ScenarioRun({ scenario, nowMs }: { scenario: ScenarioView; nowMs: number }) {
  const running = scenario.status === 'running'
  return (
    <div
      className={`scenario-run scenario-${scenario.status}`}
      data-testid="scenario-view"
      data-name={scenario.name}
      data-status={scenario.status}
    >
      <div className="scenario-run-head">
        <h3>{scenario.title}</h3>
        <span className={`badge badge-scenario-${scenario.status}`} data-testid="scenario-status">
          {statusWord(scenario.status, scenario.expectations)}
        </span>
      </div>
      {running ? (
        <p className="muted small">
          {fmtMs(Math.max(0, nowMs - scenario.startedAtMs))} in · every panel on this page shows the scenario&apos;s
          lab; when it ends, the lab runs on with your settings
        </p>
      ) : (
        <p className="muted small" data-testid="scenario-handed-back">
          The lab runs on with the settings from before the scenario; its evidence stays pinned in the Evidence panel
          until dismissed.
        </p>
      )}
      <NarrativeScroll lines={scenario.narrative.length}>
        <ol
          className="stack-list narrative"
          aria-live="polite"
          aria-label="what the scenario did"
          data-testid="scenario-narrative"
        >
          {scenario.narrative.map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines are only appended, so a line's index is its identity
            <li key={i}>
              <span className="num muted narrative-at">{fmtOffset(line.atMs)}</span>
              <span>{line.text}</span>
            </li>
          ))}
          {running ? <li className="muted narrative-wait">…</li> : null}
        </ol>
      </NarrativeScroll>
      {!running && scenario.expectations.length > 0 ? (
        <div className="verdict" data-testid="scenario-verdict">
          <h4 className="sub-head">Verdict</h4>
          <ExpectationList expectations={scenario.expectations} testId="scenario-expectation" />
        </div>
      ) : null}
      {scenario.conclusion ? (
        <p className="conclusion" data-testid="scenario-conclusion">
          {scenario.conclusion}
        </p>
      ) : null}
      {scenario.error ? (
        <p className="control-error" role="alert">
          ⚠ {scenario.error}
        </p>
      ) : null}
    </div>
  )
})

const SCENARIOS_HINT =
  'One click runs a seeded script on this lab: it sets the lab up, injects a fault at a chosen step of the five, and ' +
  'states what the evidence shows.'

/** The guided scenarios: one click runs one on the lab on screen; its narrative and verdict appear here. */
export const ScenariosPanel = memo(function ScenariosPanel({
  scenarios,
  scenario,
  send,
  nowMs,
  unavailable,
}: ScenariosPanelProps) {
  const [run, state] = useCommand(send)
  const busy = state.pending || scenario?.status === 'running'
  return (
    <Panel title="Scenarios" hint={SCENARIOS_HINT} testId="scenarios">
      {scenario ? <ScenarioRun scenario={scenario} nowMs={nowMs} /> : null}
      <p className="control-error" role="status" aria-live="polite">
        {state.error ? `⚠ ${state.error}` : ''}
      </p>
      <ul className="scenario-list" aria-label="scenarios">
        {scenarios.map((s) => {
          const current = scenario?.name === s.name
          return (
            <li key={s.name}>
              <article
                className={`card scenario-card${current ? ' scenario-current' : ''}`}
                data-testid={`scenario-${s.name}`}
                aria-labelledby={`scenario-title-${s.name}`}
              >
                <div className="scenario-card-head">
                  <h3 id={`scenario-title-${s.name}`}>{s.title}</h3>
                  <button
                    type="button"
                    data-testid={`run-scenario-${s.name}`}
                    aria-label={`Run scenario: ${s.title}`}
                    disabled={busy}
                    onClick={() => void run('runScenario', { name: s.name })}
                  >
                    {current && scenario?.status === 'running' ? 'Running…' : 'Run'}
                  </button>
                </div>
                <p className="small muted">{s.summary}</p>
              </article>
            </li>
          )
        })}
      </ul>
      {unavailable ? (
        <p className="muted empty" data-testid="unavailable-scenarios">
          {unavailable}
        </p>
      ) : scenarios.length === 0 ? (
        <p className="muted empty">This lab offers no scenarios.</p>
      ) : null}
    </Panel>
  )
})
