#!/usr/bin/env node
// The code's shape, checked where no linter looks: no function over 140 formatted lines, and no
// boolean parameter (a flag: name the choice with a type instead, e.g. 'clean' | 'dirty').
// A file's measure is one job, not a number of lines: there is no cap on a file's length (a cap
// was met by squeezing lines; Biome now lays every line out at 120 columns).
// Imports must respect the rooms of the architecture (lib/ imports nothing of server/, ...).
// Tests, fixtures and e2e drivers are exempt. Parses with the oxc parser that vite's rolldown ships.
// Exit 1 with one line per offence; `--list` prints the largest files and functions as well.

import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parseAst } from 'rolldown/parseAst'

export const MAX_FUNCTION_LINES = 140

const SOURCE = /\.(ts|tsx|mjs)$/
const EXEMPT = [
  /\.test\.tsx?$/,
  /\.e2e\.ts$/,
  /(^|\/)__fixtures__\//,
  /(^|\/)fixtures\//,
  /^e2e\//,
  /\.d\.ts$/,
  /^next-env\.d\.ts$/,
]
/** Which rooms a folder may not import from (README's architecture table). */
export const FORBIDDEN_IMPORTS = [
  { from: 'lib/', never: ['server/', 'app/', 'components/', 'node:'] },
  { from: 'components/', never: ['server/'] },
  { from: 'app/', never: ['server/'] },
  {
    from: 'server/log/',
    never: ['server/engine/', 'server/lab/', 'server/http/', 'server/cli/', 'server/experiments/'],
  },
  {
    from: 'server/engine/',
    never: ['server/lab/', 'server/http/', 'server/cli/', 'server/experiments/', 'lib/lab-protocol'],
  },
  { from: 'server/validator/', never: ['server/engine/', 'server/lab/', 'server/http/', 'server/cli/'] },
]
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression'])

/** Line number (1-based) of each offset, by binary search over line starts. */
function lineIndex(text) {
  const starts = [0]
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1)
  return (offset) => {
    let lo = 0
    let hi = starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (starts[mid] <= offset) lo = mid
      else hi = mid - 1
    }
    return lo + 1
  }
}

function* walk(node, parent) {
  if (node === null || typeof node !== 'object') return
  if (Array.isArray(node)) {
    for (const n of node) yield* walk(n, parent)
    return
  }
  if (typeof node.type === 'string') yield [node, parent]
  for (const key of Object.keys(node)) {
    if (key === 'start' || key === 'end' || key === 'type') continue
    const v = node[key]
    if (v && typeof v === 'object') yield* walk(v, typeof node.type === 'string' ? node : parent)
  }
}

function functionName(node, parent) {
  if (node.id?.name) return node.id.name
  if (parent?.type === 'MethodDefinition' || parent?.type === 'Property' || parent?.type === 'PropertyDefinition')
    return parent.key?.name ?? parent.key?.value ?? '(member)'
  if (parent?.type === 'VariableDeclarator') return parent.id?.name ?? '(anonymous)'
  return '(anonymous)'
}

/** The offences in one file's text; `file` only names them. */
export function checkSource(file, text) {
  const offences = []
  const functions = []
  const lineOf = lineIndex(text)
  const lines = text.endsWith('\n') ? lineOf(text.length - 1) : lineOf(text.length)
  const ast = parseAst(text, { lang: file.endsWith('.tsx') ? 'tsx' : 'ts' }, file)
  for (const [node, parent] of walk(ast.body, null)) {
    if (
      node.type === 'ImportDeclaration' ||
      node.type === 'ExportNamedDeclaration' ||
      node.type === 'ExportAllDeclaration'
    ) {
      const offence = importOffence(file, node.source?.value)
      if (offence) offences.push(`${file}:${lineOf(node.start)}: ${offence}`)
      continue
    }
    if (!FUNCTIONS.has(node.type)) continue
    const name = functionName(node, parent)
    const from = lineOf(node.start)
    const length = lineOf(node.end) - from + 1
    functions.push({ file, name, from, length })
    if (length > MAX_FUNCTION_LINES)
      offences.push(`${file}:${from}: function ${name} has ${length} lines (at most ${MAX_FUNCTION_LINES})`)
    for (const p of node.params ?? []) {
      const param = p.type === 'AssignmentPattern' ? p.left : p
      const t = param.typeAnnotation?.typeAnnotation
      const booleanDefault =
        p.type === 'AssignmentPattern' && p.right?.type === 'Literal' && typeof p.right.value === 'boolean'
      if (t?.type === 'TSBooleanKeyword' || booleanDefault) {
        offences.push(
          `${file}:${lineOf(param.start)}: boolean parameter ${param.name ?? '?'} of ${name} (name the choice with a type)`,
        )
      }
    }
  }
  return { lines, offences, functions }
}

/** Why `file` may not import `spec`, or null. Relative specifiers are resolved from the repository root. */
export function importOffence(file, spec) {
  if (typeof spec !== 'string') return null
  const target = spec.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)) : spec
  for (const rule of FORBIDDEN_IMPORTS) {
    if (!file.startsWith(rule.from)) continue
    const hit = rule.never.find((room) => target.startsWith(room))
    if (hit) return `${rule.from} may not import ${hit} (imports ${spec})`
  }
  return null
}

function sourceFiles() {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
  return out
    .split('\n')
    .filter((f) => SOURCE.test(f) && !EXEMPT.some((r) => r.test(f)) && !f.startsWith('node_modules/'))
}

function main() {
  const list = process.argv.includes('--list')
  const offences = []
  const files = []
  const functions = []
  for (const file of sourceFiles()) {
    let text
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      continue // deleted in the working tree
    }
    const r = checkSource(file, text)
    offences.push(...r.offences)
    files.push({ file, lines: r.lines })
    functions.push(...r.functions)
  }
  if (list) {
    console.log('largest files:')
    for (const f of files.sort((a, b) => b.lines - a.lines).slice(0, 15)) console.log(`  ${f.lines}\t${f.file}`)
    console.log('longest functions:')
    for (const f of functions.sort((a, b) => b.length - a.length).slice(0, 15))
      console.log(`  ${f.length}\t${f.file}:${f.from} ${f.name}`)
  }
  if (offences.length > 0) {
    console.error(offences.join('\n'))
    console.error(`check-shape: ${offences.length} offence(s) in ${files.length} source files`)
    process.exit(1)
  }
  console.log(
    `check-shape: ${files.length} source files, no function over ${MAX_FUNCTION_LINES} lines, no boolean parameter`,
  )
}

if (import.meta.url === `file://${process.argv[1]}`) main()
