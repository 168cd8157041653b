// The five-steps trace: one record per task sampled every traceIntervalMs and followed through
// the steps (1-4 when its batch passes them, 5 when a commit covers its offset).

import type { Step } from '../../lib/five-steps.ts'
import { taskIdOf } from '../../lib/task-id.ts'
import type { ConsumedRecord } from '../log/types.ts'
import type { Time } from '../log/time.ts'
import type { StreamTask } from './stream-task.ts'
import type { TelemetrySink } from './telemetry.ts'

export interface Trace {
  key: string
  partition: number
  offset: number
}

/** Traces kept per task until a commit covers them. */
const OPEN_TRACES = 50

export class RecordTraces {
  private readonly byPartition = new Map<number, { lastMs: number; open: Trace[] }>()

  constructor(
    private readonly workerId: string,
    private readonly intervalMs: number,
    private readonly time: Time,
    private readonly telemetry: TelemetrySink,
  ) {}

  /** Samples the batch's first record if the task's last sample is older than the interval. */
  sample(task: StreamTask, r: ConsumedRecord, now: number): Trace | null {
    let t = this.byPartition.get(task.partition)
    if (!t) {
      t = { lastMs: Number.NEGATIVE_INFINITY, open: [] }
      this.byPartition.set(task.partition, t)
    }
    if (now - t.lastMs < this.intervalMs || r.key === null) return null
    t.lastMs = now
    const trace = { key: r.key, partition: r.partition, offset: r.offset }
    t.open.push(trace)
    if (t.open.length > OPEN_TRACES) t.open.shift()
    return trace
  }

  emit(traces: readonly Trace[], step: Step): void {
    const atMs = this.time.now()
    for (const t of traces)
      this.telemetry.emit({
        type: 'trace',
        workerId: this.workerId,
        taskId: taskIdOf(t.partition),
        key: t.key,
        partition: t.partition,
        offset: t.offset,
        step,
        atMs,
      })
  }

  /** Step 5 for every open trace below the committed offsets of these tasks (at_most_once: before steps 2-4). */
  committed(tasks: readonly StreamTask[]): void {
    const done: Trace[] = []
    for (const t of tasks) {
      const tr = this.byPartition.get(t.partition)
      if (!tr) continue
      const committed = t.committedOffset ?? 0
      tr.open = tr.open.filter((x) => {
        if (x.offset < committed) {
          done.push(x)
          return false
        }
        return true
      })
    }
    this.emit(done, 5)
  }

  forget(partition: number): void {
    this.byPartition.delete(partition)
  }
}
