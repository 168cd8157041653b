#!/usr/bin/env node
// An audit of a run's dump (eoscope run --dump DIR) that shares no code with eoscope's validator: it reads the
// dump's files as their README.txt describes them and counts duplicates and lost records in the words of
// docs/measures.md. Plain Node, no dependencies, so that a run's figures can be checked by a second reading.
//
//   node scripts/audit-dump.mjs DIR [--input input] [--output output]
//
// Prints one JSON line: {"inputCommitted","outputCommitted","duplicates","lost"}.

import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/** Every line of the partition files of `topic` in `dir`, each with its partition. */
function recordsOf(dir, topic) {
  const files = readdirSync(dir).filter(
    (f) => f.startsWith(`${topic}-`) && /^\d+\.jsonl$/.test(f.slice(topic.length + 1)),
  )
  return files.flatMap((f) => {
    const partition = Number(f.slice(topic.length + 1, -'.jsonl'.length))
    const text = readFileSync(join(dir, f), 'utf8')
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => ({ partition, ...JSON.parse(line) }))
  })
}

/** A data record a read_committed reader sees: outside any transaction, or in one that committed. */
const visible = (r) => r.control === null && (r.txnOutcome === null || r.txnOutcome === 'committed')

export function auditDump(dir, topics = { input: 'input', output: 'output' }) {
  const committed = JSON.parse(readFileSync(join(dir, 'committed-offsets.json'), 'utf8')).offsets
  const committedOf = new Map(committed.filter((o) => o.topic === topics.input).map((o) => [o.partition, o.offset]))
  // Each committed output record names the input record it came from: count the copies per input.
  const copies = new Map()
  let outputCommitted = 0
  for (const r of recordsOf(dir, topics.output)) {
    if (!visible(r)) continue
    outputCommitted++
    const source = JSON.parse(r.value).source
    const at = `${source.partition}@${source.offset}`
    copies.set(at, (copies.get(at) ?? 0) + 1)
  }
  let duplicates = 0
  for (const n of copies.values()) duplicates += n - 1
  // An input record below its partition's committed offset is committed; with no output copy, it is lost.
  // Records whose value is not a number are poison: they go to the dead-letter topic, not the output.
  const deadLetters = new Set(
    recordsOf(dir, `${topics.input}-dlq`)
      .filter(visible)
      .map((r) => `${r.headers['__streams.errors.partition']}@${r.headers['__streams.errors.offset']}`),
  )
  let inputCommitted = 0
  let lost = 0
  for (const r of recordsOf(dir, topics.input)) {
    if (!visible(r) || r.offset >= (committedOf.get(r.partition) ?? 0)) continue
    inputCommitted++
    const at = `${r.partition}@${r.offset}`
    if (!copies.has(at) && !deadLetters.has(at)) lost++
  }
  return { inputCommitted, outputCommitted, duplicates, lost }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir, ...rest] = process.argv.slice(2)
  if (!dir) {
    console.error('usage: node scripts/audit-dump.mjs DIR [--input TOPIC] [--output TOPIC]')
    process.exit(2)
  }
  const flag = (name, fallback) => {
    const i = rest.indexOf(`--${name}`)
    return i >= 0 && rest[i + 1] ? rest[i + 1] : fallback
  }
  console.log(JSON.stringify(auditDump(dir, { input: flag('input', 'input'), output: flag('output', 'output') })))
}
