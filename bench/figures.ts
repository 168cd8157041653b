// What every benchmark does alike: read its --flags, summarize repeated samples as docs/measures.md asks
// (the median with min and max), and write its result file.

import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/**
 * Refuses a command line with a flag this benchmark does not know (exit 2, saying which), so a
 * mistyped flag is not silently ignored for a whole run; --help prints the usage and exits 0.
 */
export function checkFlags(
  usage: string,
  known: readonly string[],
  argv: readonly string[] = process.argv.slice(2),
): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${usage}\n`)
    process.exit(0)
  }
  const problem = unknownFlags(known, argv)
  if (problem !== null) {
    process.stderr.write(`${problem}\n`)
    process.exit(2)
  }
}

/** What is wrong with a command line's flags (one this benchmark does not know), or null. */
export function unknownFlags(known: readonly string[], argv: readonly string[]): string | null {
  const unknown = argv.filter((a) => a.startsWith('--') && !known.includes(a.slice(2)))
  return unknown.length === 0
    ? null
    : `unknown flag ${unknown.join(', ')}; this benchmark takes ${known.map((k) => `--${k}`).join(', ')} (--help ` +
        `for their meaning)`
}

/** The value after --name on the command line, or the fallback. */
export function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback
}

export interface Spread {
  median: number
  min: number
  max: number
  samples: number[]
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** The median, min and max of the samples, each rounded by `round` (default: as measured). */
export function spread(xs: readonly number[], round: (n: number) => number = (n) => n): Spread {
  return { median: round(median(xs)), min: round(Math.min(...xs)), max: round(Math.max(...xs)), samples: xs.map(round) }
}

/** Writes a result document as indented JSON, creating its directory. */
export function writeResult(file: string, doc: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`)
}
