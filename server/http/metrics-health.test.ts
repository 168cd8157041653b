// The Kafka backend's cluster health in /metrics: reachable 0 during an outage, the outages counted;
// nothing of it on the embedded log.

import { describe, expect, it } from 'vitest'
import { fixtureKafkaOutage, fixtureSnapshot } from '../../components/__fixtures__/lab-snapshot.ts'
import type { LabSnapshot } from '../../lib/lab-protocol.ts'
import type { LabController } from '../lab/lab-controller.ts'
import { createLabMetrics } from './metrics.ts'

function labShowing(s: LabSnapshot): LabController {
  return { snapshot: () => s, onSnapshot: () => () => {}, execute: async () => ({ ok: true }), close: async () => {} }
}

describe('cluster health in /metrics', () => {
  it('reports an outage on Kafka', async () => {
    const text = await createLabMetrics({
      lab: labShowing(fixtureKafkaOutage),
      socketClients: () => 0,
      defaultMetrics: false,
    }).render()
    expect(text).toMatch(/^eoscope_cluster_reachable\{application_id="eoscope-lab-mx1abc"\} 0$/m)
    expect(text).toMatch(/^eoscope_cluster_outages_total 1$/m)
    expect(text).toMatch(/^eoscope_lab_info\{backend="kafka",guarantee="exactly_once"\} 1$/m)
  })

  it('reports the cluster reachable again, with the outage still counted', async () => {
    const back = {
      ...fixtureKafkaOutage,
      health: { ...fixtureKafkaOutage.health!, reachable: true, lastOutage: { fromMs: 1, toMs: 2 } },
    }
    const text = await createLabMetrics({
      lab: labShowing(back),
      socketClients: () => 0,
      defaultMetrics: false,
    }).render()
    expect(text).toMatch(/^eoscope_cluster_reachable\{application_id="eoscope-lab-mx1abc"\} 1$/m)
    expect(text).toMatch(/^eoscope_cluster_outages_total 1$/m)
  })

  it('has no cluster figure on the embedded log', async () => {
    const text = await createLabMetrics({
      lab: labShowing(fixtureSnapshot),
      socketClients: () => 0,
      defaultMetrics: false,
    }).render()
    expect(text).not.toMatch(/^eoscope_cluster_reachable[{ ]/m)
    expect(text).toMatch(/^eoscope_cluster_outages_total 0$/m)
  })
})
