// zod schemas from the settings table (lib/streams-config.ts): the lab protocol, the sweep request
// and the CLI's flags build theirs here, so one bad value reads the same wherever it is refused.

import { z } from 'zod'
import {
  choiceProblem,
  type NumberKind,
  type Range,
  rangeOf,
  rangeProblem,
  type SettingContext,
  type SettingName,
  SETTINGS,
} from './streams-config.ts'

/** A number within a range; any other value gets rangeProblem's words. */
export function rangeSchema(range: Range, number: NumberKind): z.ZodNumber {
  const error = (issue: { input?: unknown }) => rangeProblem(range, number, issue.input)
  let schema = z.number({ error }).min(range.min, { error })
  if (range.integer ?? number.integer) schema = schema.int({ error })
  if (range.max !== Number.POSITIVE_INFINITY) schema = schema.max(range.max, { error })
  return schema
}

/** A number within a setting's range where it is set. */
export function settingSchema(name: SettingName, context: SettingContext = 'run'): z.ZodNumber {
  return rangeSchema(rangeOf(name, context), SETTINGS[name])
}

/** One of a list of choices; any other value gets choiceProblem's words. */
export function choiceSchema<const C extends readonly [string, ...string[]]>(choices: C) {
  return z.enum(choices, { error: (issue) => choiceProblem(choices, issue.input) })
}

/** The first issue of a failed parse as one line: "path: message". */
export function issueText(error: z.ZodError, fallback: string): string {
  const issue = error.issues[0]
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : ''
  return `${where}${issue?.message ?? fallback}`
}
