// Step 3's requests: which producer sends which tasks' pending records. Under exactly_once each
// task has its own transactional producer, so one send per task; otherwise (at_least_once,
// exactly_once_v2) the worker's one producer sends every task's records in one call.

import type { ProduceRecord } from '../log/types.ts'
import type { StreamTask } from './stream-task.ts'
import type { StreamsProducer } from './streams-producer.ts'

export interface Send {
  producer: StreamsProducer
  records: ProduceRecord[]
  tasks: StreamTask[]
}

/** Takes the tasks' pending records into sends (the tasks are left with none pending). */
export function sendsOf(batchTasks: Iterable<StreamTask>, threadProducer: StreamsProducer | null): Send[] {
  const tasks = [...batchTasks]
  if (!threadProducer) return tasks.map((task) => ({ producer: task.producer!, records: task.takePending(), tasks: [task] }))
  const all: ProduceRecord[] = []
  for (const task of tasks) for (const r of task.takePending()) all.push(r)
  return [{ producer: threadProducer, records: all, tasks }]
}
