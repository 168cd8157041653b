// One table of Kafka's metric names, read by the dashboard and by /metrics: every name is there
// once; every /metrics name it maps is served with the Kafka name in its HELP; the transaction
// times it computes are the sums of the latencies the history holds; the tiles' tooltips name them.

import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { fixtureSnapshot } from '../components/__fixtures__/lab-snapshot.ts'
import { StatRow } from '../components/stat-row.tsx'
import { createLabMetrics } from '../server/http/metrics.ts'
import type { LabController } from '../server/lab/lab-controller.ts'
import { KAFKA_METRIC_NAMES, kafkaNamesShownOn } from './kafka-metric-names.ts'
import type { LabSnapshot } from './lab-protocol.ts'
import { TxnStatistics } from './txn-statistics.ts'

function labWith(snapshot: LabSnapshot): LabController {
  return {
    snapshot: () => snapshot,
    onSnapshot: () => () => {},
    execute: async () => ({ ok: true }),
    close: async () => {},
  }
}

describe('Kafka metric names', () => {
  it('are each in the one table once, with how they relate to eoscope figures', () => {
    const names = KAFKA_METRIC_NAMES.map((m) => m.kafka)
    expect(new Set(names).size).toBe(names.length)
    for (const n of [
      'process-rate',
      'commit-latency-avg',
      'records-lag-max',
      'txn-commit-time-ns-total',
      'txn-abort-time-ns-total',
      'txn-begin-time-ns-total',
      'txn-send-offsets-time-ns-total',
      'record-send-rate',
      'record-retry-rate',
    ])
      expect(names).toContain(n)
    for (const m of KAFKA_METRIC_NAMES) expect(m.how.length).toBeGreaterThan(20)
  })

  const namesInMetricsHelp =
    'are in the HELP of every /metrics name the table maps, and the transaction times are the history sums'
  it(namesInMetricsHelp, async () => {
    const stats = new TxnStatistics(0)
    for (const endTxnMs of [2.5, 4, 5.25])
      stats.add({ outcome: 'committed', cause: null, durationMs: 100, records: 10, endTxnMs, sendOffsetsMs: 1.5 })
    stats.add({ outcome: 'aborted', cause: 'error', durationMs: 50, records: 3, endTxnMs: 7, sendOffsetsMs: null })
    stats.add({ outcome: 'aborted', cause: 'crash', durationMs: 50, records: 3, endTxnMs: null, sendOffsetsMs: null })
    const metrics = createLabMetrics({
      lab: labWith({ ...fixtureSnapshot, txnStats: { life: stats.view(), run: stats.view() } }),
      socketClients: () => 0,
      defaultMetrics: false,
    })
    const text = await metrics.render()
    metrics.close()
    for (const m of KAFKA_METRIC_NAMES) {
      for (const metric of m.metrics) {
        const help = text.split('\n').find((l) => l.startsWith(`# HELP ${metric} `))
        expect(help, metric).toBeDefined()
        expect(help).toContain(
          `Kafka ${m.group} ${m.kafka}: ${m.relation === 'same' ? 'the same quantity' : 'differs'}`,
        )
      }
    }
    expect(text).toContain('\neoscope_txn_commit_time_ns_total 11750000\n')
    expect(text).toContain('\neoscope_txn_abort_time_ns_total 7000000\n')
    expect(text).toContain('\neoscope_txn_send_offsets_time_ns_total 4500000\n')
    // Names tests read stay as they were.
    expect(text).toContain('\n# TYPE eoscope_processed_records_per_second gauge\n')
  })

  it("name the tiles' Kafka counterparts in their tooltips", () => {
    const html = renderToString(createElement(StatRow, { snapshot: fixtureSnapshot }))
    const mapped = KAFKA_METRIC_NAMES.flatMap((m) => m.shownOn).filter((f) => !f.startsWith('history:'))
    expect(mapped.length).toBeGreaterThan(0)
    for (const tile of mapped) {
      for (const m of kafkaNamesShownOn(tile))
        expect(html).toMatch(new RegExp(`title="[^"]*Kafka ${m.group} ${m.kafka}[^"]*"[^>]*>\\s*<dt>`))
    }
  })
})
