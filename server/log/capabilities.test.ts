import { describe, expect, it } from 'vitest'
import { guaranteeRefusal, refusal, requireCapability, requireGuarantee, UnsupportedOnBackendError } from './capabilities.ts'
import { EMBEDDED_CAPABILITIES } from './embedded/capabilities.ts'
import { KAFKA_CAPABILITIES } from './kafka/capabilities.ts'

describe('log capabilities', () => {
  it('the embedded log offers every capability', () => {
    for (const c of ['exactly_once_v2', 'drop-acks', 'pause', 'kill-at-step', 'scenarios'] as const) {
      expect(refusal(EMBEDDED_CAPABILITIES, c)).toBeNull()
      expect(() => requireCapability(EMBEDDED_CAPABILITIES, c)).not.toThrow()
    }
  })

  it('kafka refuses exactly_once_v2 with the KIP-447 reason, and only that guarantee', () => {
    expect(guaranteeRefusal(KAFKA_CAPABILITIES, 'exactly_once_v2')).toMatch(/KIP-447/)
    expect(guaranteeRefusal(KAFKA_CAPABILITIES, 'exactly_once')).toBeNull()
    expect(guaranteeRefusal(KAFKA_CAPABILITIES, 'at_least_once')).toBeNull()
    expect(() => requireGuarantee(KAFKA_CAPABILITIES, 'exactly_once_v2')).toThrow(UnsupportedOnBackendError)
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
})
