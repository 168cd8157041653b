// The five steps a record goes through in a worker, the domain vocabulary shared by the engine
// (where the counters live), the lab and the dashboard:
//   1 consume  2 process + update state  3 produce  4 broker ack  5 commit offsets

export type Step = 1 | 2 | 3 | 4 | 5

export const STEPS: readonly Step[] = [1, 2, 3, 4, 5]

export const STEP_NAMES: Record<Step, string> = {
  1: 'consume',
  2: 'process + update state',
  3: 'produce',
  4: 'broker ack',
  5: 'commit offset',
}

/** Records that reached each step, per task. */
export interface StepCounters {
  consumed: number
  processed: number
  produced: number
  acked: number
  /**
   * In the engine: records its commits covered. In the lab's TaskView: the records below the group's committed offset.
   */
  committed: number
}

export function emptyStepCounters(): StepCounters {
  return { consumed: 0, processed: 0, produced: 0, acked: 0, committed: 0 }
}
