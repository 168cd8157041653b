// A LabController stand-in for tests of the http layer: it animates the dashboard fixture and
// records the commands it ran. Commands are validated with the real parseCommand.

import { fixtureSnapshot } from '../../../components/__fixtures__/lab-snapshot.ts'
import { parseCommand, type CommandResult, type LabSnapshot } from '../../../lib/lab-protocol.ts'
import type { LabController } from '../../lab/lab-controller.ts'

export interface FakeLab extends LabController {
  executed: { name: string; payload: unknown }[]
  /** Publishes the next snapshot to the listeners. */
  tick(): LabSnapshot
}

const TIME_FIELDS = new Set(['t', 'atMs', 'startedAtMs', 'beginMs', 'endMs', 't0', 't1', 'checkedAtMs'])

/** The fixture moved in time by `by` ms (every instant field, phaseEnds included). */
function shiftTimes<T>(value: T, by: number, isTime = false): T {
  if (typeof value === 'number') return (isTime ? value + by : value) as T
  if (Array.isArray(value)) return value.map((v) => shiftTimes(v, by)) as T
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, shiftTimes(v, by, TIME_FIELDS.has(k) || k === 'phaseEnds' || isTime)]),
    ) as T
  }
  return value
}

export function createFakeLab({ intervalMs = 0 }: { intervalMs?: number } = {}): FakeLab {
  let current: LabSnapshot = shiftTimes(fixtureSnapshot, Date.now() - fixtureSnapshot.atMs)
  const listeners = new Set<(s: LabSnapshot) => void>()
  const executed: { name: string; payload: unknown }[] = []

  const tick = (): LabSnapshot => {
    const now = Date.now()
    const last = current.series[current.series.length - 1]!
    const newPoint = now - last.t >= 1000
    const seq = current.seq + 1
    current = {
      ...current,
      seq,
      atMs: now,
      series: newPoint
        ? [...current.series.slice(-59), { ...last, t: now, processedPerSec: 900 + (seq % 13) * 15 }]
        : current.series,
      tasks: current.tasks.map((t) => ({
        ...t,
        steps: {
          consumed: t.steps.consumed + 10,
          processed: t.steps.processed + 10,
          produced: t.steps.produced + 10,
          acked: t.steps.acked + 10,
          committed: t.steps.committed + (seq % 2 ? 20 : 0),
        },
        position: t.position + 10,
      })),
      transactions: current.transactions.map((x) =>
        x.outcome === 'open' ? x : { ...x, beginMs: x.beginMs + 100, endMs: (x.endMs ?? 0) + 100 },
      ),
      traces: current.traces.map((r) => ({
        ...r,
        steps:
          r.outcome === 'in-flight'
            ? [...r.steps.slice(0, 4), { step: ((r.steps.length % 5) + 1) as 1, atMs: now }]
            : r.steps,
      })),
      totals: { ...current.totals, inputRecords: current.totals.inputRecords + 60 },
    }
    for (const l of listeners) l(current)
    return current
  }
  const timer = intervalMs > 0 ? setInterval(tick, intervalMs) : null

  return {
    executed,
    tick,
    snapshot: () => current,
    onSnapshot(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    async execute(name, payload): Promise<CommandResult> {
      const parsed = parseCommand(name, payload)
      if (!parsed.ok) return parsed
      if (
        (parsed.name === 'killWorker' || parsed.name === 'pauseWorker' || parsed.name === 'resumeWorker') &&
        !current.workers.some((w) => w.id === (parsed.payload as { workerId: string }).workerId)
      ) {
        return { ok: false, error: `no such worker: ${(parsed.payload as { workerId: string }).workerId}` }
      }
      executed.push({ name: parsed.name, payload: parsed.payload })
      if (parsed.name === 'setConfig')
        current = { ...current, config: { ...current.config, ...(parsed.payload as object) } }
      return { ok: true }
    },
    async close() {
      if (timer) clearInterval(timer)
      listeners.clear()
    },
  }
}
