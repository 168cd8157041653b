import { describe, expect, it } from 'vitest'
import { fixtureAtLeastOnce, fixtureKafkaOutage, fixtureSnapshot } from './__fixtures__/lab-snapshot.ts'
import { isViolation } from './correctness-panel.tsx'
import { visibleTraces } from './pipeline-panel.tsx'
import { renderLab } from './__fixtures__/render-lab.ts'
import { COMMIT_INTERVAL_SCALE, fromPosition, toPosition } from './log-scale.ts'
import { recoverySegments } from './recovery-panel.tsx'
import { compactLabel, labelRows, MAX_LABEL_ROWS, timeTicks } from './time-series-chart.tsx'
import { numberText, typedRate } from './controls-panel.tsx'
import { toLanes } from './transactions-panel.tsx'

function render(snapshot = fixtureSnapshot): string {
  return renderLab(snapshot, { pages: ['overview', 'scenarios', 'transactions', 'partitions', 'journal'] })
}

describe('the dashboard rendered from a snapshot', () => {
  it('names the backend and shows the notes', () => {
    const html = render()
    expect(html).toContain('backend: <!-- -->embedded')
    expect(html).toContain('exactly_once_v2 runs on the embedded log')
  })

  it('shows every processing.guarantee with the current one checked', () => {
    const html = render()
    for (const g of ['at_least_once', 'exactly_once', 'exactly_once_v2'])
      expect(html).toContain(`data-testid="guarantee-${g}"`)
    expect(html).toMatch(/aria-checked="true"[^>]*data-testid="guarantee-exactly_once"/)
  })

  it('locks enable.idempotence under exactly_once and says why', () => {
    const html = render()
    expect(html).toMatch(/<input[^>]*disabled=""[^>]*data-testid="idempotence"/)
    expect(html).toContain('exactly_once forces enable.idempotence=true')
    expect(render(fixtureAtLeastOnce)).not.toMatch(/<input[^>]*disabled=""[^>]*data-testid="idempotence"/)
  })

  it('shows the five steps per task with lag and committed offset', () => {
    const html = render()
    for (const name of ['consume', 'process + update state', 'produce', 'broker ack', 'commit offset'])
      expect(html).toContain(name)
    expect(html).toContain('data-testid="task-0_5"')
    expect(html.match(/data-testid="trace-dot"/g)?.length).toBe(3)
  })

  it('draws a card per worker with kill and pause or resume', () => {
    const html = render()
    expect(html).toContain('data-testid="kill-worker-1"')
    expect(html).toContain('data-testid="resume-worker-2"')
    expect(html).toMatch(/<button[^>]*disabled=""[^>]*data-testid="kill-worker-3"/)
  })

  it('draws recoveries with their phases, pending ones marked pending; the overview shows the latest', () => {
    expect(renderLab(fixtureSnapshot).match(/data-testid="recovery"/g)?.length).toBe(1)
    const html = renderLab(fixtureSnapshot, { pages: ['recovery'] })
    expect(html.match(/data-testid="recovery"/g)?.length).toBe(2)
    expect(html).toContain('recovered in')
    expect(html).toContain('recovering…')
    expect(html).toContain('pending')
  })

  it('draws transaction bars of every outcome and a history table', () => {
    const html = render()
    for (const o of ['committed', 'aborted', 'open']) expect(html).toContain(`data-outcome="${o}"`)
    expect(html).toContain('data-testid="txn-history"')
    expect(html).toContain('fenced')
  })

  it('highlights duplicates as a violation under exactly_once only', () => {
    expect(render()).not.toContain('data-violation="true"')
    const eosWithDupes = { ...fixtureSnapshot, correctness: { ...fixtureSnapshot.correctness!, duplicates: 3 } }
    expect(render(eosWithDupes)).toMatch(/data-testid="correctness-duplicates" data-violation="true"/)
    expect(render(fixtureAtLeastOnce)).toMatch(/data-testid="correctness-duplicates" data-violation="false"/)
  })

  it('waits for the lab before the first snapshot', () => {
    const html = renderLab(null, { connection: 'connecting' })
    expect(html).toContain('Waiting for the lab')
  })
})

describe('helpers', () => {
  it('maps commit.interval.ms to a log slider and back', () => {
    const s = COMMIT_INTERVAL_SCALE
    expect(toPosition(s, 10)).toBe(0)
    expect(toPosition(s, 30_000)).toBe(s.steps)
    for (const ms of [10, 100, 1000, 30_000]) expect(fromPosition(s, toPosition(s, ms))).toBe(ms)
    expect(fromPosition(s, toPosition(s, 250))).toBeCloseTo(250, -1)
  })

  it('allows at_least_once duplicates but never lost records or aborted reads', () => {
    expect(isViolation('duplicates', 5, 'at_least_once')).toBe(false)
    expect(isViolation('duplicates', 5, 'exactly_once_v2')).toBe(true)
    expect(isViolation('lost', 1, 'at_least_once')).toBe(true)
    expect(isViolation('abortedReads', 1, 'at_least_once')).toBe(true)
    expect(isViolation('openTransactions', 2, 'exactly_once')).toBe(false)
  })

  it('splits a recovery into the phases reached so far', () => {
    const [done, pending] = fixtureSnapshot.recoveries
    expect(recoverySegments(done!, 0).segments.map((s) => s.key)).toEqual([
      'detection',
      'rebalance',
      'fence',
      'restore',
      'catchUp',
    ])
    const p = recoverySegments(pending!, pending!.t0 + 2000)
    expect(p.segments.map((s) => s.key)).toEqual(['detection', 'rebalance'])
    expect(p.pendingFrom).toBe(1250)
    expect(p.span).toBe(2000)
  })

  it('shows in-flight traces first and lets finished ones linger briefly', () => {
    const traces = fixtureSnapshot.traces
    const now = fixtureSnapshot.atMs
    expect(visibleTraces(traces, now).map((t) => t.id)).toEqual(['r-1', 'r-3', 'r-2'])
    expect(visibleTraces(traces, now + 10_000).map((t) => t.id)).toEqual(['r-1'])
  })

  it('puts each transactional producer on its own lane', () => {
    const lanes = toLanes(fixtureSnapshot.transactions)
    expect(lanes.map((l) => l.transactionalId)).toEqual(['eoscope-0_0', 'eoscope-0_1', 'eoscope-0_2'])
    expect(lanes[1]!.epoch).toBe(2)
  })
})

describe('chart marker labels', () => {
  it('stack into rows when they would overlap, leftward ones included', () => {
    const m = (x: number, label: string) => ({ x, label })
    // 0..10 s axis, 0.1 s per character: labels of 10 characters take 1.1 s.
    const rows = labelRows(
      [m(1, 'ack lost 1'), m(1.5, 'killed w-1'), m(5, 'rebalanced'), m(8, 'expired w1'), m(7.5, 'config xyz')],
      0.1,
      0,
      10,
    )
    const rowOf = (label: string) => rows.find((r) => r.marker.label === label)!.row
    expect(rowOf('ack lost 1')).toBe(0)
    expect(rowOf('killed w-1')).toBe(1)
    expect(rowOf('rebalanced')).toBe(0)
    // Right of 60% labels run leftwards: 7.5 covers 6.4..7.5 and 8 covers 6.9..8, so they overlap.
    expect(rowOf('config xyz')).toBe(0)
    expect(rowOf('expired w1')).toBe(1)
  })

  it('never overlap: a label with no room is abbreviated, then left to its line’s tooltip', () => {
    const m = (x: number, label: string) => ({ x, label })
    const long = 'config processing.guarantee=at_least_once, commit.interval.ms=1000'
    const markers = [
      m(1, long),
      m(1.2, 'worker-1 killed at step 5'),
      m(1.4, 'rebalance gen 3'),
      m(1.6, 'fenced worker-1'),
      m(1.8, 'recovered'),
      m(2, 'ack lost 3'),
    ]
    const unitsPerChar = 0.1
    const placed = labelRows(markers, unitsPerChar, 0, 10)
    // Three rows taken from x = 1 on: the next three have no room, not even for their first word.
    expect(placed.map((p) => p.text)).toEqual([
      'config processing.guarant…',
      'worker-1 killed at step 5',
      'rebalance gen 3',
      '',
      '',
      '',
    ])
    // No two drawn labels of one row share any part of the axis.
    const spans = placed
      .filter((p) => p.text)
      .map((p) => ({ row: p.row, from: p.marker.x, to: p.marker.x + (p.text.length + 1) * unitsPerChar }))
    for (const a of spans)
      for (const b of spans) if (a !== b && a.row === b.row) expect(a.to <= b.from || b.to <= a.from).toBe(true)
    expect(placed.every((p) => p.row < MAX_LABEL_ROWS)).toBe(true)
    expect(compactLabel(long)).toBe('config…')
    // On the right labels run leftwards: one too long for the room left is shown by its first word.
    const right = labelRows(
      [m(5, 'aaaaaaaaaa'), m(5.1, 'bbbbbbbbbb'), m(5.2, 'cccccccccc'), m(8, 'processing.guarantee=at_least_once')],
      unitsPerChar,
      0,
      10,
    )
    expect(right.at(-1)).toMatchObject({ row: 0, text: 'processin…' })
  })

  const kafkaUnavailable =
    'on Kafka: shows the application.id, the outage with its age, and each unavailable control disabled with its reason'
  it(kafkaUnavailable, () => {
    const html = render(fixtureKafkaOutage)
    expect(html).toContain('backend: <!-- -->kafka')
    expect(html).toContain('eoscope-lab-mx1abc')
    expect(html).toMatch(
      /data-testid="health" data-reachable="false" role="alert"[^>]*>cluster unreachable for <!-- -->12<!-- --> s/,
    )
    // The notes open on the outage.
    expect(html).toMatch(
      new RegExp(
        /<details class="notes" data-testid="notes" open="">\s*/.source +
          /<summary>The cluster \(127\.0\.0\.1:19092\) does not answer/.source,
      ),
    )
    expect(html).toMatch(/disabled=""[^>]*title="exactly_once_v2 is unavailable[^"]*"[^>]*>exactly_once_v2</)
    expect(html).toMatch(/data-testid="drop-ack" disabled=""/)
    expect(html).toContain('data-testid="unavailable-scenarios"')
    expect(html).toMatch(/data-testid="pid-[^"]+"[^>]*>pid <!-- -->4000<!-- --> @ node-a/)
    expect(html).toContain('>remote</span>')
  })

  it('on the embedded backend: no health badge, every control enabled', () => {
    const html = render()
    expect(html).not.toContain('data-testid="health"')
    expect(html).not.toMatch(/data-testid="drop-ack" disabled=""/)
    expect(html).not.toContain('unavailable-')
  })
})

describe('the time axis', () => {
  it('ticks round seconds and the end of the window, never two labels side by side', () => {
    // The scale's own ticks were 0.7, 2.7, 4.7, 6.7 and 7.3 s: the last two labels ran into each other.
    expect(timeTicks(0.7, 7.3)).toEqual([2, 4, 7.3])
    expect(timeTicks(0.7, 11.6)).toEqual([2, 4, 6, 8, 11.6])
    expect(timeTicks(1, 40)).toEqual([10, 20, 30, 40])
    expect(timeTicks(1, 43.2)).toEqual([10, 20, 30, 43.2])
    expect(timeTicks(300, 600)).toEqual([300, 360, 420, 480, 540, 600])
    expect(timeTicks(5, 5)).toEqual([5])
    for (const [a, b] of [
      [0, 3.3],
      [2.1, 151.7],
      [90, 389.4],
    ] as const) {
      const ticks = timeTicks(a, b)
      expect(ticks.length).toBeLessThanOrEqual(6)
      expect(ticks.at(-1)).toBe(b)
      const step = ticks.length > 2 ? ticks[1]! - ticks[0]! : b - a
      for (let i = 1; i < ticks.length; i++) expect(ticks[i]! - ticks[i - 1]!).toBeGreaterThanOrEqual(step / 2)
      for (const t of ticks) expect(t).toBeGreaterThanOrEqual(a)
    }
  })
})

describe('the input-rate box', () => {
  it('never holds "null": empty while the lab reports no rate, and Set stays off until a number is typed', () => {
    expect(numberText(null)).toBe('')
    expect(numberText(undefined)).toBe('')
    expect(numberText(Number.NaN)).toBe('')
    expect(numberText(2000)).toBe('2000')
    expect(typedRate('')).toBeNull()
    expect(typedRate('  ')).toBeNull()
    expect(typedRate('abc')).toBeNull()
    expect(typedRate('500')).toBe(500)
  })
})
