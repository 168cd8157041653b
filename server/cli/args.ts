// A strict flag parser: every flag must be known and well-formed, or the command refuses to run.

export class UsageError extends Error {
  readonly name = 'UsageError'
}

export type FlagSpec = { kind: 'string' | 'int' | 'number' | 'bool'; min?: number; max?: number; choices?: readonly string[] }

export type Parsed = Record<string, string | number | boolean>

export function parseFlags(argv: readonly string[], spec: Record<string, FlagSpec>): Parsed {
  const out: Parsed = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`)
    let name = arg.slice(2)
    let value: string | undefined
    const eq = name.indexOf('=')
    if (eq >= 0) {
      value = name.slice(eq + 1)
      name = name.slice(0, eq)
    }
    const s = spec[name]
    if (!s) throw new UsageError(`unknown flag --${name}`)
    if (name in out) throw new UsageError(`--${name} given twice`)
    if (s.kind === 'bool') {
      if (value !== undefined) throw new UsageError(`--${name} takes no value`)
      out[name] = true
      continue
    }
    if (value === undefined) {
      value = argv[++i]
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`)
    }
    if (s.kind === 'string') {
      if (s.choices && !s.choices.includes(value)) throw new UsageError(`--${name} must be one of ${s.choices.join(', ')}; got ${JSON.stringify(value)}`)
      out[name] = value
      continue
    }
    const n = Number(value)
    if (value.trim() === '' || !Number.isFinite(n) || (s.kind === 'int' && !Number.isInteger(n))) {
      throw new UsageError(`--${name} must be ${s.kind === 'int' ? 'an integer' : 'a number'}; got ${JSON.stringify(value)}`)
    }
    if (s.min !== undefined && n < s.min) throw new UsageError(`--${name} must be at least ${s.min}; got ${n}`)
    if (s.max !== undefined && n > s.max) throw new UsageError(`--${name} must be at most ${s.max}; got ${n}`)
    out[name] = n
  }
  return out
}
