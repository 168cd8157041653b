import { describe, expect, it } from 'vitest'
import {
  guaranteeRefusal,
  refusal,
  requireCapability,
  requireGuarantee,
  UnsupportedOnBackendError,
} from './capabilities.ts'
import { EMBEDDED_CAPABILITIES } from './embedded/capabilities.ts'
import { ackRouteFor, KAFKA_CAPABILITIES, kafkaCapabilities } from './kafka/capabilities.ts'

describe('log capabilities', () => {
  it('the embedded log offers every capability', () => {
    for (const c of ['exactly_once_v2', 'drop-acks', 'pause', 'kill-at-step', 'scenarios'] as const) {
      expect(refusal(EMBEDDED_CAPABILITIES, c)).toBeNull()
      expect(() => requireCapability(EMBEDDED_CAPABILITIES, c)).not.toThrow()
    }
  })

  it('kafka offers every guarantee (exactly_once_v2 through KIP-447 requests of its own)', () => {
    for (const g of ['at_least_once', 'exactly_once', 'exactly_once_v2'] as const) {
      expect(guaranteeRefusal(KAFKA_CAPABILITIES, g)).toBeNull()
      expect(() => requireGuarantee(KAFKA_CAPABILITIES, g)).not.toThrow()
    }
  })

  it('a refusal names the capability and the backend', () => {
    try {
      requireCapability(KAFKA_CAPABILITIES, 'drop-acks')
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(UnsupportedOnBackendError)
      expect((e as UnsupportedOnBackendError).capability).toBe('drop-acks')
      expect((e as UnsupportedOnBackendError).backend).toBe('kafka')
    }
  })

  it('kafka offers drop-acks only behind the ack-drop proxy, and never on TLS (with the reason)', () => {
    expect(refusal(kafkaCapabilities('direct'), 'drop-acks')).toMatch(/ack-drop proxy/)
    expect(refusal(kafkaCapabilities('ack-drop-proxy'), 'drop-acks')).toBeNull()
    expect(ackRouteFor({}, 'ack-drop-proxy')).toBe('ack-drop-proxy')
    expect(ackRouteFor({ ssl: true }, 'ack-drop-proxy')).toBe('direct')
    expect(
      refusal(kafkaCapabilities(ackRouteFor({ ssl: true }, 'ack-drop-proxy'), { ssl: true }), 'drop-acks'),
    ).toMatch(/TLS/)
    // The rest of what Kafka refuses does not move with the route; the guided scenarios run on both.
    expect(refusal(kafkaCapabilities('ack-drop-proxy'), 'hanging-transaction')).not.toBeNull()
    expect(refusal(kafkaCapabilities('direct'), 'scenarios')).toBeNull()
  })

  it("broker faults: none on the embedded log, on Kafka only with the directory of eoscope's own local brokers", () => {
    expect(refusal(EMBEDDED_CAPABILITIES, 'broker-faults')).toMatch(/no brokers to kill/)
    expect(refusal(kafkaCapabilities('direct'), 'broker-faults')).toMatch(/KAFKA_CLUSTER_DIR/)
    expect(refusal(kafkaCapabilities('direct', {}, '/tmp/cluster'), 'broker-faults')).toBeNull()
    expect(() => requireCapability(kafkaCapabilities('ack-drop-proxy'), 'broker-faults')).toThrow(
      UnsupportedOnBackendError,
    )
  })
})
