'use client'
// The Learn page: the argument of exactly-once stream processing as a path of chapters over the
// live lab, one a screen, its number in the URL (?chapter=N). Each chapter's button runs its
// scenarios on the lab on screen (as the Scenarios page does: set up, fault, settings handed back),
// and its claim is read from their evidence cards, said plainly when it did not hold.

import Link from 'next/link'
import { useSearchParams } from 'next/navigation'
import { useState } from 'react'
import {
  type ChapterVerdict,
  chapterNumber,
  followedThroughFiveSteps,
  LEARN_CHAPTERS,
  type LearnChapter,
  latestCard,
  scenarioVerdict,
} from '../lib/learn-chapters.ts'
import type { EvidenceCard, LabSnapshot } from '../lib/lab-protocol.ts'
import { EvidencePanel } from './evidence-card.tsx'
import { useLabContext } from './lab-context.tsx'
import { useChapterRun } from './learn-run.ts'
import { LearnLiveView } from './learn-view.tsx'
import { useCommand, type SendCommand } from './use-command.ts'

const NO_CARDS: EvidenceCard[] = []
const SLOW_RATE = 1

/** A chapter's verdict on the lab as it stands. */
export function verdictOf(chapter: LearnChapter, s: LabSnapshot, running: string | null): ChapterVerdict {
  if (chapter.scenarios.length === 0)
    return followedThroughFiveSteps(s.traces)
      ? { state: 'holds', failing: [], undecided: [], missing: [] }
      : { state: 'not-run', failing: [], undecided: [], missing: [] }
  return scenarioVerdict(chapter.scenarios, s.evidence ?? NO_CARDS, running)
}

/** What the verdict says, in plain words. */
export function verdictText(chapter: LearnChapter, v: ChapterVerdict, step: { at: number; of: number } | null): string {
  switch (v.state) {
    case 'running':
      return `Running on the lab${step ? ` (scenario ${step.at} of ${step.of})` : ''}: checked when it ends.`
    case 'holds':
      return `Checked on this lab: ${chapter.claim}. The claim holds.`
    case 'failed':
      return `The claim did not hold on this lab: ${chapter.claim} was not shown.`
    case 'undecided':
      return `Not shown on this lab: ${chapter.claim}. No claim failed, but this machine could not tell one apart.`
    case 'not-run':
      return chapter.scenarios.length === 0
        ? `Not seen yet on this lab: ${chapter.claim}. No traced record has reached step 5 so far.`
        : `Not checked yet on this lab: ${chapter.claim}. The button above checks it.`
  }
}

function ChapterNav({ current, verdicts }: { current: number; verdicts: readonly ChapterVerdict[] }) {
  return (
    <nav aria-label="chapters" className="learn-nav">
      <ol>
        {LEARN_CHAPTERS.map((c, i) => (
          <li key={c.n}>
            <Link
              href={`/learn?chapter=${c.n}`}
              aria-current={c.n === current ? 'step' : undefined}
              className={`learn-nav-item learn-${verdicts[i]!.state}${c.n === current ? ' current' : ''}`}
              data-testid={`learn-nav-${c.n}`}
              data-state={verdicts[i]!.state}
            >
              <span className="num">{c.n}</span> {c.title}
            </Link>
          </li>
        ))}
      </ol>
    </nav>
  )
}

/** Chapter 1's action: slow the lab down to follow single records, and back to the rate it had. */
function SlowDown({ s, send }: { s: LabSnapshot; send: SendCommand }) {
  const [run, state] = useCommand(send)
  const [before, setBefore] = useState<number | null>(null)
  const rate = s.config.inputRatePerSec
  const slow = async () => {
    const was = rate
    const r = await run('setConfig', { inputRatePerSec: SLOW_RATE })
    if (r.ok && was !== SLOW_RATE) setBefore(was)
  }
  return (
    <div className="learn-action">
      <button type="button" data-testid="learn-run" disabled={state.pending || rate === SLOW_RATE} onClick={slow}>
        Slow the lab to 1 record/s
      </button>
      {before !== null ? (
        <button
          type="button"
          className="link-button"
          data-testid="learn-restore"
          disabled={state.pending}
          onClick={() => void run('setConfig', { inputRatePerSec: before }).then((r) => r.ok && setBefore(null))}
        >
          back to {before} records/s
        </button>
      ) : null}
      {state.error ? <p className="control-error">⚠ {state.error}</p> : null}
    </div>
  )
}

function RunScenarios({
  chapter,
  unavailable,
  run,
}: {
  chapter: LearnChapter
  unavailable: string | undefined
  run: ReturnType<typeof useChapterRun>
}) {
  return (
    <div className="learn-action">
      <button
        type="button"
        data-testid="learn-run"
        disabled={run.busy || unavailable !== undefined}
        onClick={() => run.start(chapter.scenarios)}
      >
        {run.busy ? 'Running…' : chapter.action}
      </button>
      <span className="small muted">
        runs {chapter.scenarios.join(', then ')} on the lab on screen; your settings come back when it ends
      </span>
      {unavailable ? <p className="muted small">{unavailable}</p> : null}
      {run.error ? <p className="control-error">⚠ {run.error}</p> : null}
    </div>
  )
}

function Verdict({
  chapter,
  v,
  step,
}: {
  chapter: LearnChapter
  v: ChapterVerdict
  step: { at: number; of: number } | null
}) {
  return (
    <div className={`learn-verdict learn-${v.state}`} data-testid="learn-verdict" data-state={v.state} role="status">
      <p>{verdictText(chapter, v, step)}</p>
      {v.failing.length > 0 ? (
        <ul className="small">
          {v.failing.map((f) => (
            <li key={f}>did not hold: {f}</li>
          ))}
        </ul>
      ) : null}
      {v.undecided.length > 0 ? (
        <ul className="small">
          {v.undecided.map((f) => (
            <li key={f}>not distinguishable here: {f}</li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

function Chapter({ chapter, s, send }: { chapter: LearnChapter; s: LabSnapshot; send: SendCommand }) {
  const cards = s.evidence ?? NO_CARDS
  const run = useChapterRun(send, cards)
  const running = s.scenario?.status === 'running' ? s.scenario.name : run.current
  const v = verdictOf(chapter, s, running)
  const shown = chapter.scenarios.flatMap((name) => {
    const c = latestCard(cards, name)
    return c ? [c] : []
  })
  return (
    <article
      className="learn-chapter"
      data-testid="learn-chapter"
      data-chapter={chapter.n}
      aria-labelledby="learn-title"
    >
      <div className="learn-text">
        <h2 id="learn-title">
          <span className="muted">
            Chapter {chapter.n} of {LEARN_CHAPTERS.length}
          </span>{' '}
          {chapter.title}
        </h2>
        {chapter.text.map((t) => (
          <p key={t}>{t}</p>
        ))}
        {chapter.scenarios.length === 0 ? (
          <SlowDown s={s} send={send} />
        ) : (
          <RunScenarios chapter={chapter} unavailable={s.unavailable?.scenarios} run={run} />
        )}
        <Verdict chapter={chapter} v={v} step={run.step} />
        {s.scenario?.status === 'running' ? (
          <p className="small muted" data-testid="learn-narrative">
            {s.scenario.narrative.at(-1)?.text ?? s.scenario.title}
          </p>
        ) : null}
      </div>
      <LearnLiveView view={chapter.view} snapshot={s} />
      {shown.length > 0 ? <EvidencePanel cards={shown} send={send} /> : null}
      <ChapterSteps n={chapter.n} />
    </article>
  )
}

function ChapterSteps({ n }: { n: number }) {
  return (
    <div className="learn-steps">
      {n > 1 ? (
        <Link href={`/learn?chapter=${n - 1}`} data-testid="learn-prev">
          ← {LEARN_CHAPTERS[n - 2]!.title}
        </Link>
      ) : (
        <span />
      )}
      {n < LEARN_CHAPTERS.length ? (
        <Link href={`/learn?chapter=${n + 1}`} data-testid="learn-next">
          {LEARN_CHAPTERS[n]!.title} →
        </Link>
      ) : (
        <Link href="/experiments">Experiments →</Link>
      )}
    </div>
  )
}

export function LearnPage() {
  const lab = useLabContext()
  const n = chapterNumber(useSearchParams().get('chapter'))
  const s = lab.snapshot
  if (s === null) return null
  const running = s.scenario?.status === 'running' ? s.scenario.name : null
  const verdicts = LEARN_CHAPTERS.map((c) => verdictOf(c, s, running))
  return (
    <div className="learn page-stack" data-testid="page-learn">
      <ChapterNav current={n} verdicts={verdicts} />
      <Chapter key={n} chapter={LEARN_CHAPTERS[n - 1]!} s={s} send={lab.send} />
    </div>
  )
}
