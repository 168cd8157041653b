// zod schemas from the settings table (lib/streams-config.ts): the lab protocol, the sweep request
// and the CLI's flags build theirs here, so one bad value reads the same wherever it is refused.

import { z } from 'zod'
import { choiceProblem, rangeOf, type SettingContext, type SettingName, SETTINGS, settingProblem } from './streams-config.ts'

/** A number within a setting's range where it is set; any other value gets settingProblem's words. */
export function settingSchema(name: SettingName, context: SettingContext = 'run'): z.ZodNumber {
  const error = (issue: { input?: unknown }) => settingProblem(name, context, issue.input)
  const range = rangeOf(name, context)
  let schema = z.number({ error }).min(range.min, { error })
  if (SETTINGS[name].integer) schema = schema.int({ error })
  if (range.max !== Number.POSITIVE_INFINITY) schema = schema.max(range.max, { error })
  return schema
}

/** One of a list of choices; any other value gets choiceProblem's words. */
export function choiceSchema<const C extends readonly [string, ...string[]]>(choices: C) {
  return z.enum(choices, { error: (issue) => choiceProblem(choices, issue.input) })
}

/** The first issue of a failed parse as one line: "path: message". */
export function issueText(error: z.ZodError, fallback: string): string {
  const issue = error.issues[0]
  const where = issue?.path.length ? issue.path.join('.') + ': ' : ''
  return `${where}${issue?.message ?? fallback}`
}
