// Typed flag specs for the `eoscope` commands: one spec per command gives the parser (node:util
// parseArgs, then zod with the bounds of lib/streams-config.ts's settings table) and its --help.
// Every flag must be known and well-formed, or the command refuses to run.

import { parseArgs } from 'node:util'
import { z } from 'zod'
import { choiceSchema, rangeSchema, settingSchema } from '../../lib/setting-schema.ts'
import {
  defaultText,
  describeRange,
  type Range,
  rangeOf,
  type SettingContext,
  type SettingName,
  SETTINGS,
} from '../../lib/streams-config.ts'

/** Bad input on the command line: exit 2 with the message. */
export class UsageError extends Error {
  readonly name = 'UsageError'
}

type Choices = readonly [string, ...string[]]

export type FlagSpec =
  | { readonly type: 'boolean'; readonly meaning: string }
  | { readonly type: 'string'; readonly meaning: string; readonly value: string; readonly defaultText?: string }
  | {
      readonly type: 'choice'
      readonly meaning: string
      readonly choices: Choices
      readonly default?: string
      readonly defaultText?: string
    }
  /** A setting of the table: its meaning, range and default unless the flag says otherwise. */
  | {
      readonly type: 'setting'
      readonly setting: SettingName
      readonly context?: SettingContext
      readonly meaning?: string
      readonly default?: number
      readonly defaultText?: string
    }
  /** A number outside the table (a benchmark's own knobs). */
  | {
      readonly type: 'number'
      readonly meaning: string
      readonly range: Range
      readonly integer: boolean
      readonly default?: number
    }

export type FlagSpecs = Readonly<Record<string, FlagSpec>>

export interface CommandSpec<F extends FlagSpecs = FlagSpecs> {
  /** What the user types before the command's name (default eoscope). */
  readonly program?: string
  readonly name: string
  readonly summary: string
  /** A leading positional argument, if the command takes one. */
  readonly positional?: { readonly name: string; readonly meaning: string }
  readonly flags: F
  /** Paragraphs after the flags. */
  readonly notes?: readonly string[]
}

type ValueOf<F extends FlagSpec> = F extends { type: 'boolean' }
  ? boolean
  : F extends { type: 'choice'; choices: infer C extends Choices }
    ? F extends { default: string }
      ? C[number]
      : C[number] | undefined
    : F extends { type: 'string' }
      ? string | undefined
      : F extends { default: number }
        ? number
        : number | undefined

/** What a command's flags parse to: absent booleans are false, absent flags without a default undefined. */
export type FlagValues<F extends FlagSpecs> = { -readonly [K in keyof F]: ValueOf<F[K]> }

export type CommandLine<F extends FlagSpecs> =
  | { help: true }
  | { help: false; positional: string | undefined; flags: FlagValues<F> }

const HELP_FLAGS = new Set(['help', 'h'])

/** Flag name to its raw text, after the shape checks parseArgs leaves to us. */
function readTokens(
  spec: CommandSpec,
  argv: readonly string[],
): { help: boolean; raw: Record<string, string | true>; positionals: string[] } {
  const options = Object.fromEntries(
    Object.entries(spec.flags).map(([name, f]) => [
      name,
      { type: f.type === 'boolean' ? ('boolean' as const) : ('string' as const) },
    ]),
  )
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true })
  const raw: Record<string, string | true> = {}
  const positionals: string[] = []
  let help = false
  for (const t of tokens) {
    if (t.kind === 'positional') positionals.push(t.value)
    if (t.kind !== 'option') continue
    if (HELP_FLAGS.has(t.name)) {
      help = true
      continue
    }
    const f = Object.hasOwn(spec.flags, t.name) && t.rawName.startsWith('--') ? spec.flags[t.name]! : null
    if (f === null) throw new UsageError(`unknown flag ${t.rawName}`)
    if (t.name in raw) throw new UsageError(`${t.rawName} given twice`)
    if (f.type === 'boolean') {
      if (t.value !== undefined) throw new UsageError(`${t.rawName} takes no value`)
      raw[t.name] = true
    } else {
      if (t.value === undefined || (!t.inlineValue && t.value.startsWith('--')))
        throw new UsageError(`${t.rawName} needs a value`)
      raw[t.name] = t.value
    }
  }
  return { help, raw, positionals }
}

/**
 * A number typed on the command line becomes a number; anything else reaches the
 * schema as typed, to be refused in its words.
 */
const numeric = (v: unknown) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v)

function schemaOf(f: FlagSpec): z.ZodType {
  switch (f.type) {
    case 'boolean':
      return z.literal(true)
    case 'string':
      return z.string()
    case 'choice':
      return choiceSchema(f.choices)
    case 'setting':
      return z.preprocess(numeric, settingSchema(f.setting, f.context))
    case 'number':
      return z.preprocess(numeric, rangeSchema(f.range, f))
  }
}

function defaultOf(f: FlagSpec): unknown {
  if (f.type === 'boolean') return false
  return 'default' in f ? f.default : undefined
}

/** Parses a command's arguments: its flags typed and within their bounds, or a UsageError. */
export function parseCommandLine<F extends FlagSpecs>(spec: CommandSpec<F>, argv: readonly string[]): CommandLine<F> {
  const { help, raw, positionals } = readTokens(spec, argv)
  if (help) return { help: true }
  const allowed = spec.positional ? 1 : 0
  if (positionals.length > allowed) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[allowed])}`)
  const flags: Record<string, unknown> = {}
  for (const [name, f] of Object.entries(spec.flags)) {
    if (!(name in raw)) {
      flags[name] = defaultOf(f)
      continue
    }
    const r = schemaOf(f).safeParse(raw[name])
    if (!r.success) throw new UsageError(`--${name}: ${r.error.issues[0]?.message ?? 'invalid value'}`)
    flags[name] = r.data
  }
  return { help: false, positional: positionals[0], flags: flags as FlagValues<F> }
}

function valueName(f: FlagSpec): string {
  switch (f.type) {
    case 'boolean':
      return ''
    case 'string':
      return ` ${f.value}`
    case 'choice':
      return ` ${f.choices.join('|')}`
    case 'setting':
      return /(\.ms|Ms)$/.test(f.setting) ? ' MS' : ' N'
    case 'number':
      return ' N'
  }
}

function describe(f: FlagSpec): string {
  switch (f.type) {
    case 'boolean':
      return f.meaning
    case 'string':
    case 'choice': {
      const d = f.defaultText ?? ('default' in f ? f.default : undefined)
      return d === undefined ? f.meaning : `${f.meaning} (default: ${d})`
    }
    case 'setting': {
      const meaning = f.meaning ?? SETTINGS[f.setting].meaning
      const d = f.defaultText ?? (f.default !== undefined ? String(f.default) : defaultText(f.setting))
      return `${meaning} (default: ${d}; ${describeRange(rangeOf(f.setting, f.context), SETTINGS[f.setting])})`
    }
    case 'number':
      return `${f.meaning} (${f.default === undefined ? '' : `default: ${f.default}; `}${describeRange(f.range, f)})`
  }
}

const SYNOPSIS_WIDTH = 110

/** "usage: " and the command with its flags, wrapped. */
export function usageText(spec: CommandSpec): string {
  const head = `usage: ${spec.program ?? 'eoscope'} ${spec.name}${spec.positional ? ` ${spec.positional.name}` : ''}`
  const lines = [head]
  for (const [name, f] of Object.entries(spec.flags)) {
    const word = `[--${name}${valueName(f)}]`
    if (lines.at(-1)!.length + word.length + 1 > SYNOPSIS_WIDTH) lines.push(' '.repeat(head.length))
    lines.push(`${lines.pop()!} ${word}`)
  }
  return lines.join('\n')
}

/** `eoscope <command> --help`: every flag with its meaning and default. */
export function helpText(spec: CommandSpec): string {
  const command = `${spec.program ?? 'eoscope'} ${spec.name}`
  const lines = [
    `${command}: ${spec.summary}`,
    '',
    `usage: ${command}${spec.positional ? ` ${spec.positional.name}` : ''} [flags]`,
    '',
  ]
  if (spec.positional) lines.push(`  ${spec.positional.name}`, `      ${spec.positional.meaning}`, '')
  lines.push('flags:')
  for (const [name, f] of Object.entries(spec.flags)) lines.push(`  --${name}${valueName(f)}`, `      ${describe(f)}`)
  lines.push('  -h, --help', '      this help')
  for (const note of spec.notes ?? []) lines.push('', note)
  return `${lines.join('\n')}\n`
}
