// The /experiments page in Chromium against the real server: a small sweep started from the page,
// its progress, the five charts drawn, an earlier run overlaid, the exports.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { cellOf, type ExperimentRecord, type RepetitionResult } from '../lib/experiment-protocol.ts'
import { DEFAULT_SWEEP_SETTINGS } from '../server/experiments/sweep-runner.ts'
import { SHOTS, describeInChromium } from './chromium-page.ts'
import { STALL_MS, STATE_MS } from './page-helpers.ts'
import { untilProgress } from './progress.ts'

/** A stored earlier run to overlay: made-up figures with the right shape. */
function earlierRun(): ExperimentRecord {
  const rep = (g: string, ms: number): RepetitionResult => ({
    repetition: 1,
    seed: 1,
    throughputPerSec: g === 'at_least_once' ? 150_000 : 150_000 * (1 - 8 / (ms + 8)),
    throughputWindowMs: 2000,
    saturated: true,
    latencyP50Ms: g === 'at_least_once' ? 5 : ms / 2 + 10,
    latencyP99Ms: g === 'at_least_once' ? 30 : ms + 20,
    latencyMaxMs: null,
    latencyRecords: 1000,
    latencyWindowMs: 2000,
    killedWorker: 'worker-1',
    killDelayMs: 1,
    recoveryMs: 1000 + ms / 2,
    phases: {
      detection: 950,
      rebalance: 10,
      fence: g === 'at_least_once' ? 0 : 3,
      restore: 10,
      catchUp: ms / 2 + 27 - (g === 'at_least_once' ? 0 : 3),
    },
    redone: ms * 2.5,
    duplicates: g === 'at_least_once' ? ms * 2.5 : 0,
    lost: 0,
  })
  const cells = [10, 25, 100].flatMap((ms) =>
    (['at_least_once', 'exactly_once'] as const).map((g) => cellOf(g, ms, [rep(g, ms)])),
  )
  return {
    id: 'earlier-run',
    label: 'earlier run',
    status: 'done',
    error: null,
    startedAt: '2024-01-01T00:00:00.000Z',
    finishedAt: '2024-01-01T00:05:00.000Z',
    request: {
      intervals: [10, 25, 100],
      guarantees: ['at_least_once', 'exactly_once'],
      repeat: 1,
      backend: 'embedded',
      label: 'earlier run',
    },
    settings: DEFAULT_SWEEP_SETTINGS,
    machine: { cpus: 2, node: process.version, clock: 'system' },
    progress: { done: 6, total: 6, current: null },
    cells,
  }
}

async function pathsIn(page: Page, testId: string): Promise<number> {
  return page.locator(`[data-testid="${testId}"] svg path`).count()
}

let dataDir: string

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'eoscope-e2e-data-'))
  mkdirSync(path.join(dataDir, 'experiments'))
  writeFileSync(path.join(dataDir, 'experiments', 'earlier-run.json'), JSON.stringify(earlierRun()))
})

afterAll(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

describeInChromium(
  'the experiments page in chromium',
  { server: () => ({ env: { EOSCOPE_DATA_DIR: dataDir } }), open: null },
  (lab) => {
    it('is linked from the dashboard header (and /observe is not, on the embedded log)', async () => {
      const { page, server } = lab
      await page.goto(server.url)
      await expect
        .poll(
          () =>
            page
              .getByTestId('backend')
              .textContent()
              .catch(() => ''),
          { timeout: STATE_MS },
        )
        .toContain('embedded')
      await page.getByTestId('nav-experiments').click()
      await page.getByTestId('experiments').waitFor({ timeout: STATE_MS })
      expect(new URL(page.url()).pathname).toBe('/experiments')
    })

    it('runs a small sweep with live progress and draws all five charts', async () => {
      const { page, server } = lab
      await page.getByTestId('results-list').waitFor({ timeout: STATE_MS })
      // Intervals 10 and 25 ms (the form starts with 10, 100, 1000), both default guarantees, one repetition.
      await page.getByTestId('interval-100').uncheck()
      await page.getByTestId('interval-1000').uncheck()
      await page.getByTestId('interval-25').check()
      await page.getByTestId('repeat').fill('1')
      await page.getByTestId('start-sweep').click()
      await page.locator('[data-testid="sweep-progress"][data-status="running"]').waitFor({ timeout: STATE_MS })
      expect(await page.getByTestId('start-sweep').isDisabled()).toBe(true)
      // Partial results: the first cell's charts appear while the sweep still runs.
      await page.getByTestId('sweep-chart-throughput').waitFor({ timeout: STATE_MS })
      expect(await page.locator('[data-testid="sweep-progress"][data-status="running"]').count()).toBe(1)
      // The sweep ends when its cells are measured: the wait fails only when no cell moves on for a stall period.
      const current = async () =>
        (
          (await (await fetch(`${server.url}/api/experiments/current`)).json()) as {
            experiment: ExperimentRecord | null
          }
        ).experiment
      const stage = async () => {
        const e = await current()
        return { status: e?.status, done: e?.progress.done, current: e?.progress.current }
      }
      // A stage (a cell's recovery on a busy machine) may take a while: two stall periods.
      await untilProgress({
        what: 'the sweep to finish',
        read: stage,
        done: (p) => p.status !== 'running',
        stallMs: 2 * STALL_MS,
        everyMs: 500,
      })
      await page.getByTestId('sweep-progress').waitFor({ state: 'detached', timeout: STATE_MS })
      expect(await page.getByTestId('sweep-table').locator('tbody tr').count()).toBe(4)

      // The charts redraw with the last cell's figures: on a busy machine that render may still be under way.
      for (const id of [
        'sweep-chart-throughput',
        'sweep-chart-recovery',
        'sweep-chart-latency',
        'sweep-chart-tradeoff',
        'sweep-chart-duplicates',
      ]) {
        await expect.poll(() => pathsIn(page, id), { message: id }).toBeGreaterThan(0)
      }
      // Lines: throughput has one per guarantee; recovery bars are stacked by phase.
      await expect
        .poll(() => page.locator('[data-testid="sweep-chart-throughput"] .recharts-line-curve').count())
        .toBe(2)
      await expect
        .poll(() => page.locator('[data-testid="sweep-chart-recovery"] .recharts-bar-rectangle').count())
        .toBeGreaterThan(4)
      await expect
        .poll(() => page.locator('[data-testid="sweep-chart-tradeoff"] .recharts-label-list text').count())
        .toBe(4)
      await page.screenshot({ path: path.join(SHOTS, 'experiments-sweep.png'), fullPage: true })
    })

    it('overlays an earlier run and exports CSV and JSON', async () => {
      const { page, server } = lab
      await page.getByTestId('overlay-earlier-run').click()
      await expect
        .poll(() => page.locator('[data-testid="sweep-chart-throughput"] .recharts-line-curve').count(), {
          timeout: STATE_MS,
        })
        .toBe(4)
      await expect.poll(() => page.getByTestId('shown-experiment').textContent()).toContain('earlier run')
      await page.screenshot({ path: path.join(SHOTS, 'experiments-overlay.png'), fullPage: true })
      const csvHref = (await page.getByTestId('export-csv').getAttribute('href'))!
      const csv = await (await fetch(server.url + csvHref)).text()
      expect(csv.split('\n')[0]).toMatch(/^guarantee,commitIntervalMs,repetitions,throughputPerSecMedian/)
      expect(csv.trimEnd().split('\n')).toHaveLength(5)
      const json = await (
        await fetch(server.url + (await page.getByTestId('export-json').getAttribute('href'))!)
      ).json()
      expect(json.cells).toHaveLength(4)
    })
  },
)
