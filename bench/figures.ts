// What every benchmark does alike: read its --flags, summarize repeated samples as MEASURES.md asks
// (the median with min and max), and write its result file.

import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'

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
  writeFileSync(file, JSON.stringify(doc, null, 2) + '\n')
}
