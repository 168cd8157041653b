// A guided scenario on the dashboard's lab (embedded log, virtual clock) leaves a live lab: when it
// ends, the lab runs on with the settings from before it (streams settings, handler, rate, worker
// count), every worker running and the committed input advancing; the run stays as an evidence
// card whose links open the partition log on the partition and offsets they name. Reset means the
// defaults.

import { describe, expect, it } from 'vitest'
import type { LabConfig, LabSnapshot } from '../../lib/lab-protocol.ts'
import { MockTime } from '../log/time.ts'
import { Lab } from './lab.ts'
import { dashboardScenarioHost, EVIDENCE_PINNED_MS, MAX_EVIDENCE_CARDS, EvidenceShelf } from './lab-scenario.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'
import { inProcessRuntimes } from '../runtime/runtime-factory.ts'
import { WorkerBoard } from './worker-board.ts'

/** The settings a user sets (partitions are the scenario's lab's own: its logs hold the evidence). */
function userSettings(c: LabConfig): Omit<LabConfig, 'partitions'> {
  const { partitions: _, ...rest } = c
  return rest
}

async function newLab(time: MockTime): Promise<Lab> {
  const lab = new Lab(inProcessRuntimes({ time, seed: 5 }), {
    ratePerSec: 400,
    snapshotIntervalMs: 100,
    validateIntervalMs: 1_000,
  })
  await time.runUntilSettled(lab.start())
  return lab
}

async function run(time: MockTime, lab: Lab, name: string, args: object): Promise<unknown> {
  return time.runUntilSettled(lab.execute(name, args))
}

async function finished(time: MockTime, lab: Lab, cards: number): Promise<LabSnapshot> {
  await time.runUntil(
    () => (lab.snapshot().evidence ?? []).length >= cards && lab.snapshot().scenario?.status !== 'running',
    600_000,
    50,
  )
  return lab.snapshot()
}

describe('a scenario on the dashboard leaves a live lab and an evidence card', () => {
  it.each(['hanging-transaction', 'crash-before-commit', 'zombie'])(
    '%s: the lab returns to the settings from before it, workers running and committing',
    async (name) => {
      const time = new MockTime()
      const lab = await newLab(time)
      const asked = {
        'processing.guarantee': 'at_least_once',
        'commit.interval.ms': 300,
        inputRatePerSec: 300,
        workers: 4,
        'default.deserialization.exception.handler': 'fail',
      }
      expect(await run(time, lab, 'setConfig', asked)).toEqual({ ok: true })
      await time.runFor(1_000)
      const before = userSettings(lab.snapshot().config)
      expect(await run(time, lab, 'runScenario', { name })).toMatchObject({ ok: true })
      const ended = await finished(time, lab, 1)
      expect(ended.scenario?.status).toBe('passed')
      expect(userSettings(ended.config)).toEqual(before)
      // Within 5 s every worker runs and the committed input advances.
      const committed = ended.totals.committedInput
      await time.runFor(5_000)
      const live = lab.snapshot()
      expect(live.workers.map((w) => w.state)).toEqual(['running', 'running', 'running', 'running'])
      expect(live.totals.committedInput).toBeGreaterThan(committed + 300)
      expect(live.totals.inputRecords).toBeGreaterThan(ended.totals.inputRecords)

      const [card] = live.evidence!
      expect(card).toMatchObject({ id: `${name}-1`, name, status: 'passed' })
      expect(card!.expectations.every((e) => e.holds)).toBe(true)
      expect(card!.links.length).toBeGreaterThan(0)
      expect(Object.keys(card!.figures).length).toBeGreaterThan(0)
      // A link opens the partition log on its partition, from its first offset.
      const link = card!.links[0]!
      expect(
        await run(time, lab, 'selectPartition', {
          topic: link.topic,
          partition: link.partition,
          window: 'at',
          fromOffset: link.fromOffset,
        }),
      ).toEqual({ ok: true })
      await time.runFor(300)
      const log = lab.snapshot().partitionLog!
      expect(log.partition).toBe(link.partition)
      expect(log.window).toBe('at')
      expect(log.cells[0]!.offset).toBe(link.fromOffset)
      expect(log.cells.map((c) => c.offset)).toContain(Math.min(link.toOffset, link.fromOffset + log.cells.length) - 1)
      await time.runUntilSettled(lab.close())
    },
    300_000,
  )

  it('a scenario run twice leaves two cards; a card stays until dismissed; reset means the defaults', async () => {
    const time = new MockTime()
    const lab = await newLab(time)
    expect(
      await run(time, lab, 'setConfig', { 'processing.guarantee': 'exactly_once_v2', inputRatePerSec: 1_000 }),
    ).toEqual({ ok: true })
    const before = userSettings(lab.snapshot().config)
    await run(time, lab, 'runScenario', { name: 'isolation' })
    await finished(time, lab, 1)
    await run(time, lab, 'runScenario', { name: 'isolation' })
    const twice = await finished(time, lab, 2)
    expect(twice.evidence!.map((c) => c.id)).toEqual(['isolation-1', 'isolation-2'])
    expect(userSettings(twice.config)).toEqual(before)
    expect(await run(time, lab, 'dismissEvidence', { id: 'isolation-1' })).toEqual({ ok: true })
    expect(await run(time, lab, 'dismissEvidence', { id: 'isolation-1' })).toMatchObject({ ok: false })
    expect(lab.snapshot().evidence!.map((c) => c.id)).toEqual(['isolation-2'])

    expect(await run(time, lab, 'reset', {})).toEqual({ ok: true })
    const reset = lab.snapshot()
    expect(reset.config).toMatchObject({
      'processing.guarantee': 'exactly_once',
      'commit.interval.ms': 100,
      inputRatePerSec: 400,
      workers: 3,
      partitions: 6,
      'default.deserialization.exception.handler': 'log-and-continue',
    })
    // The evidence stays (a reset ends the lab, not what was shown of past runs).
    expect(reset.evidence!.map((c) => c.id)).toEqual(['isolation-2'])
    await time.runUntilSettled(lab.close())
  }, 300_000)

  const measuringLabOffScreen =
    'a lab started to measure runs off screen: the lab on screen stays, the measuring lab is closed and retired ' +
    'when the run ends'
  it(measuringLabOffScreen, async () => {
    const onScreen = { config: {}, slots: [] } as unknown as LabRuntime
    const started: string[] = []
    const measuring = {
      config: { 'commit.interval.ms': 100 },
      start: async () => void started.push('start'),
      close: async () => void started.push('close'),
      retire: async (how: string) => void started.push(`retire ${how}`),
    } as unknown as LabRuntime
    const replaced: LabRuntime[] = []
    const host = dashboardScenarioHost('commit-interval', {
      time: new MockTime(),
      seed: 1,
      backend: 'embedded',
      workerThreads: 'shared',
      forScenario: () => measuring,
      replace: async (r) => {
        replaced.push(r)
        return new WorkerBoard()
      },
      onScreen: () => onScreen,
      rate: () => 400,
      handBack: () => {},
      mark: () => {},
    })
    expect(await host.start({ guarantee: 'exactly_once', ratePerSec: 1, records: 1, role: 'measure' })).toBe(measuring)
    expect(replaced).toEqual([])
    expect(started).toEqual(['start'])
    // Nothing of the run replaced the lab on screen: nothing to hand back, the measuring lab gone.
    expect(await host.end()).toBeNull()
    expect(started).toEqual(['start', 'close', 'retire ended'])
  })

  it('keeps at most MAX_EVIDENCE_CARDS cards, the oldest dropped first', () => {
    const shelf = new EvidenceShelf()
    for (let i = 0; i < MAX_EVIDENCE_CARDS + 3; i++) {
      const id = shelf.nextId('zombie')
      shelf.begin()
      shelf.add(
        {
          id,
          name: 'zombie',
          title: 'z',
          status: 'passed',
          startedAtMs: i,
          endedAtMs: i,
          expectations: [],
          figures: {},
          conclusion: null,
          error: null,
          links: [],
        },
        null,
      )
    }
    expect(shelf.list()).toHaveLength(MAX_EVIDENCE_CARDS)
    expect(shelf.list()[0]!.id).toBe('zombie-4')
  })

  const workerCardsKilledOrStopped =
    'worker cards: "killed" only for a kill; workers the scenario\'s lab stopped or ended say "stopped by the ' +
    'scenario"'
  it(workerCardsKilledOrStopped, () => {
    const slot = (id: string, process: string, worker: string) => ({
      slotId: id,
      process: { state: process },
      worker: { id, memberId: null, state: worker, tasks: new Map() },
      startedAtMs: 0,
    })
    const rt = {
      slots: [slot('w-1', 'killed', 'running'), slot('w-2', 'killed', 'running'), slot('w-3', 'running', 'stopped')],
    } as unknown as LabRuntime
    const board = new WorkerBoard()
    board.onEvent({ type: 'worker-killed', workerId: 'w-1', step: 5, atMs: 10 })
    const states = () => board.workerViews(rt, 100).map((w) => [w.state, w.stoppedBy ?? null])
    expect(states()).toEqual([
      ['killed', null],
      ['killed', null],
      ['stopped', null],
    ])
    board.cleanStops = 'scenario'
    expect(states()).toEqual([
      ['killed', null],
      ['stopped', 'scenario'],
      ['stopped', 'scenario'],
    ])
  })

  const retentionKeepsLinkedRecords =
    'retention keeps every record while a run goes on, then the records a recent card links to, in its own lab ' +
    'only'
  it(retentionKeepsLinkedRecords, () => {
    const shelf = new EvidenceShelf()
    const rt = {
      topics: { input: 'input', output: 'output', changelog: 'eoscope-store-changelog' },
    } as unknown as LabRuntime
    const other = { topics: rt.topics } as unknown as LabRuntime
    const out3 = { topic: 'output', partition: 3 }
    shelf.begin()
    expect(shelf.keepFrom(rt, out3, 0)).toBe(0)
    const link = {
      label: 'aborted',
      topic: 'output' as const,
      partition: 3,
      fromOffset: 1_200,
      toOffset: 1_260,
      atMs: 5,
    }
    shelf.add(
      {
        id: 'isolation-1',
        name: 'isolation',
        title: 'i',
        status: 'passed',
        startedAtMs: 0,
        endedAtMs: 1_000,
        expectations: [],
        figures: {},
        conclusion: null,
        error: null,
        links: [link],
      },
      rt,
    )
    expect(shelf.keepFrom(rt, out3, 2_000)).toBe(1_200)
    expect(shelf.keepFrom(rt, { topic: 'input', partition: 3 }, 2_000)).toBe(Number.POSITIVE_INFINITY)
    expect(shelf.keepFrom(other, out3, 2_000)).toBe(Number.POSITIVE_INFINITY)
    expect(shelf.keepFrom(rt, out3, 1_000 + EVIDENCE_PINNED_MS + 1)).toBe(Number.POSITIVE_INFINITY)
    shelf.dismiss('isolation-1')
    expect(shelf.keepFrom(rt, out3, 2_000)).toBe(Number.POSITIVE_INFINITY)
  })
})
