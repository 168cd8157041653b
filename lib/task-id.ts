// A task's id as Kafka Streams names it: `<subtopology>_<partition>` (StreamTask "0_3").
// eoscope's topology has one subtopology, 0, so a task is one input partition. Build and parse
// task ids only here.

export type TaskId = `${number}_${number}`

const TASK_ID = /^(\d+)_(\d+)$/

export function taskIdOf(partition: number, subtopology = 0): TaskId {
  return `${subtopology}_${partition}`
}

/** The input partition of a task id; throws on anything that is not `<subtopology>_<partition>`. */
export function partitionOfTask(id: string): number {
  const m = TASK_ID.exec(id)
  if (!m) throw new Error(`not a task id: ${JSON.stringify(id)} (expected <subtopology>_<partition>, e.g. 0_3)`)
  return Number(m[2])
}

export function isTaskId(id: string): id is TaskId {
  return TASK_ID.test(id)
}
