// What to observe, from words a user gives (the CLI's flags, the /observe page's query): one
// parser for both, so they refuse the same input with the same words. A RangeError names what is
// wrong; nothing is connected before the target parses.

import { changelogTopic } from '../../lib/records.ts'
import type { ObserveTarget } from './application-observer.ts'
import { parseRecordFormat } from './observe-validation.ts'

export interface ObserveTargetWords {
  applicationId?: string
  /** Comma-separated topic lists. */
  input?: string
  output?: string
  format?: string
  changelog?: string
  deadLetter?: string
}

const GROUP_ID = /^[A-Za-z0-9._-]{1,249}$/
const TOPIC = /^[A-Za-z0-9._-]{1,249}$/

function topicList(s: string | undefined, what: string): string[] {
  const topics = (s ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
  for (const t of topics)
    if (!TOPIC.test(t))
      throw new RangeError(
        `${what} topic ${JSON.stringify(t.slice(0, 80))} is not a Kafka topic name (letters, digits, . _ -)`,
      )
  if (topics.length > 20) throw new RangeError(`at most 20 ${what} topics; got ${topics.length}`)
  return topics
}

export function parseObserveTarget(w: ObserveTargetWords): ObserveTarget {
  const applicationId = w.applicationId?.trim()
  if (!applicationId)
    throw new RangeError('the application id is required: the application.id of the application to observe')
  if (!GROUP_ID.test(applicationId))
    throw new RangeError(
      `application id ${JSON.stringify(applicationId.slice(0, 80))} is not a Kafka group id eoscope can ` +
        `observe (letters, digits, . _ -)`,
    )
  const input = topicList(w.input, 'input')
  const output = topicList(w.output, 'output')
  const changelog = w.changelog?.trim() || undefined
  const deadLetter = w.deadLetter?.trim() || undefined
  if (w.format === undefined || w.format === '') {
    if (changelog !== undefined || deadLetter !== undefined)
      throw new RangeError('a changelog and a dead-letter topic are for the validator: give the record format too')
    return { applicationId, input, output }
  }
  const format = parseRecordFormat(w.format)
  if (input.length !== 1 || output.length !== 1)
    throw new RangeError(
      `the validator runs on one input and one output topic: name one of each (got ${input.length} input and ` +
        `${output.length} output)`,
    )
  for (const t of [changelog, deadLetter])
    if (t !== undefined && !TOPIC.test(t))
      throw new RangeError(`topic ${JSON.stringify(t.slice(0, 80))} is not a Kafka topic name (letters, digits, . _ -)`)
  return {
    applicationId,
    input,
    output,
    validation: {
      format,
      input: input[0]!,
      output: output[0]!,
      changelog: changelog ?? changelogTopic(applicationId),
      deadLetter: deadLetter ?? null,
    },
  }
}
