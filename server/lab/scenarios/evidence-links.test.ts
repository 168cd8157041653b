// Each scenario's evidence links point at records that exist in the lab it ends on and hold what
// the claim is about: the duplicated copies, the aborted transaction's records, the redone input.
// The same virtual-time runs as scenarios.test.ts (a seed gives the same records on every run).

import { describe, expect, it } from 'vitest'
import type { EvidenceLink } from '../../../lib/lab-protocol.ts'
import type { InProcessRuntime } from '../../runtime/in-process-runtime.ts'
import { runScenarioInVirtualTime, SCENARIOS } from './index.ts'

/** What the records of a link must show, per scenario. */
const CLAIM: Record<string, 'duplicated' | 'aborted' | 'some-aborted' | 'input'> = {
  'crash-before-commit': 'duplicated',
  'crash-before-commit-eos': 'aborted',
  'lost-ack': 'duplicated',
  zombie: 'some-aborted',
  'hanging-transaction': 'aborted',
  isolation: 'aborted',
  'commit-interval': 'input',
}

async function checkLink(rt: InProcessRuntime, link: EvidenceLink, claim: (typeof CLAIM)[string]): Promise<void> {
  const topic = rt.topics[link.topic]
  expect(link.partition).toBeLessThan(rt.partitions)
  expect(link.toOffset).toBeGreaterThan(link.fromOffset)
  const raw = await rt.connection
    .inspector()
    .readRaw({ topic, partition: link.partition }, link.fromOffset, link.toOffset, Number.MAX_SAFE_INTEGER)
  expect(raw.length, link.label).toBe(link.toOffset - link.fromOffset)
  expect(raw[0]!.offset).toBe(link.fromOffset)
  const data = raw.filter((r) => r.control === null)
  if (claim === 'input' || link.topic === 'input') return
  if (claim === 'aborted')
    expect(data.every((r) => r.txnOutcome === 'aborted') && data.length > 0, link.label).toBe(true)
  if (claim === 'some-aborted')
    expect(
      data.some((r) => r.txnOutcome === 'aborted'),
      link.label,
    ).toBe(true)
  if (claim === 'duplicated') {
    const sources = data.map((r) => JSON.stringify((JSON.parse(r.value!) as { source: unknown }).source))
    expect(new Set(sources).size, link.label).toBeLessThan(sources.length)
  }
}

describe('scenario evidence links', () => {
  it.each(SCENARIOS.map((s) => [s.name, s] as const))(
    '%s links to records that exist and hold what it claims',
    async (name, scenario) => {
      const result = await runScenarioInVirtualTime(scenario, 1, async (r, host) => {
        const last = host.runtimes[host.runtimes.length - 1]!
        for (const link of r.links) await checkLink(last, link, CLAIM[name]!)
      })
      expect(result.links.length).toBeGreaterThan(0)
      for (const l of result.links) expect(l.atMs).toBeGreaterThan(0)
      expect(Object.keys(result.figures).length).toBeGreaterThan(0)
      // The narrative quotes the figures: each figure's number appears in its text or conclusion.
      const text = [...result.narrative.map((n) => n.text), result.conclusion].join('\n')
      for (const [k, v] of Object.entries(result.figures)) expect(text, k).toContain(String(v))
    },
    180_000,
  )
})
