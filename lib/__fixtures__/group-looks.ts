// Looks at a three-worker group over a kill: generation 3 with w1, w2, w3 holding two input
// partitions each; w2 killed; generation 4 with its partitions on w1 and w3; w4 (its
// replacement) joins in generation 5.
import type { GroupObservation } from '../group-history.ts'

const m = (memberId: string, workerId: string | null, partitions: number[]) => ({ memberId, workerId, partitions })

export const BEFORE_KILL: GroupObservation = {
  atMs: 1_000,
  generationId: 3,
  members: [m('w1-1', 'w1', [0, 1]), m('w2-2', 'w2', [2, 3]), m('w3-3', 'w3', [4, 5])],
}
export const AFTER_KILL: GroupObservation = {
  atMs: 7_000,
  generationId: 4,
  members: [m('w1-1', 'w1', [0, 1, 2]), m('w3-3', 'w3', [3, 4, 5])],
}
export const REPLACED: GroupObservation = {
  atMs: 9_000,
  generationId: 5,
  members: [m('w1-1', 'w1', [0, 1]), m('w3-3', 'w3', [4, 5]), m('w4-4', 'w4', [2, 3])],
}
