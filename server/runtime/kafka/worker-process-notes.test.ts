import { describe, expect, it } from 'vitest'
import { NO_NETWORK_DELAY } from '../../log/kafka/proxy/ack-drop-proxy.ts'
import { KAFKA_WORDING, kafkaWording } from './worker-process-notes.ts'

describe("a Kafka lab's wording", () => {
  it('names the network the workers sit behind, and says nothing of one where there is none', () => {
    expect(kafkaWording(undefined)).toBe(KAFKA_WORDING)
    expect(kafkaWording(NO_NETWORK_DELAY)).toBe(KAFKA_WORDING)
    expect(KAFKA_WORDING.network).toBeUndefined()
    const delay = { latencyMs: 5, jitterMs: 1 }
    const far = kafkaWording({ request: delay, response: delay, seed: 1 })
    expect(far.network).toBe('workers 5 ms from the brokers (+ up to 1 ms)')
    expect(far.latencyModel).toMatch(/^workers 5 ms from the brokers \(\+ up to 1 ms\), each way .*no model$/)
    expect(far.killed).toBe(KAFKA_WORDING.killed)
  })
})
