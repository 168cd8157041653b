// The Kafka lab's logs: pino on stderr (a CLI's results go to stdout), at LOG_LEVEL, one child
// logger per component. A worker process logs the same way; its parent shows a line's message.

import pino from 'pino'
import { createLogger, logLevelFrom, type Logger } from '../../logging.ts'

let root: Logger | null = null

/** A child logger of the process's stderr logger, for one component. */
export function componentLogger(component: string, parent?: Logger): Logger {
  if (parent) return parent.child({ component })
  if (root === null) {
    const level = logLevelFrom(process.env)
    root = createLogger(level.ok ? level.level : 'info', pino.destination(2))
  }
  return root.child({ component })
}

/** What a worker process's stderr line says: a log line's message, or the line as it is. */
export function lineText(line: string): string {
  if (!line.startsWith('{')) return line
  try {
    const v = JSON.parse(line) as { msg?: unknown }
    return typeof v.msg === 'string' ? v.msg : line
  } catch {
    return line
  }
}
