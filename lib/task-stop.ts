// The record that stopped a task (a poison record under default.deserialization.exception.handler=fail):
// raised by the engine, carried in worker status by both runtimes, shown by the dashboard.

export interface TaskStop {
  taskId: string
  topic: string
  partition: number
  offset: number
  key: string | null
  /** The value's first bytes, as text. */
  valueHead: string
  handler: 'fail'
  message: string
}
