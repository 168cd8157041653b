// What a log connection can do, declared once by each backend (server/log/embedded,
// server/log/kafka). Every refusal, in the CLI, REST, the socket and the dashboard's disabled
// controls, reads its reason here: nobody above the log seam decides again what a backend can do.

import type { ProcessingGuarantee } from '../../lib/streams-config.ts'

/** Things a lab, a run or a worker may ask of a backend that not every backend offers. */
export const CAPABILITIES = [
  'exactly_once_v2',
  'drop-acks',
  'pause',
  'kill-at-step',
  'scenarios',
  'hanging-transaction',
  'broker-faults',
] as const
export type Capability = (typeof CAPABILITIES)[number]

export interface LogCapabilities {
  readonly backend: 'embedded' | 'kafka'
  /** Why a capability is unavailable; a capability not listed is offered. */
  readonly unavailable: Readonly<Partial<Record<Capability, string>>>
}

/** Thrown when a backend is asked for what it cannot do: choose another backend or another setting. */
export class UnsupportedOnBackendError extends Error {
  readonly name = 'UnsupportedOnBackendError'
  constructor(
    readonly capability: Capability,
    readonly backend: LogCapabilities['backend'],
    reason: string,
  ) {
    super(reason)
  }
}

/** The reason a capability is unavailable, or null when the backend offers it. */
export function refusal(caps: LogCapabilities, capability: Capability): string | null {
  return caps.unavailable[capability] ?? null
}

/** Throws UnsupportedOnBackendError when the backend does not offer the capability. */
export function requireCapability(caps: LogCapabilities, capability: Capability): void {
  const reason = refusal(caps, capability)
  if (reason !== null) throw new UnsupportedOnBackendError(capability, caps.backend, reason)
}

/** The capability a processing.guarantee needs beyond the basics, if any. */
export function capabilityForGuarantee(guarantee: ProcessingGuarantee): Capability | null {
  return guarantee === 'exactly_once_v2' ? 'exactly_once_v2' : null
}

/** The reason this backend refuses a guarantee, or null. */
export function guaranteeRefusal(caps: LogCapabilities, guarantee: ProcessingGuarantee): string | null {
  const c = capabilityForGuarantee(guarantee)
  return c === null ? null : refusal(caps, c)
}

export function requireGuarantee(caps: LogCapabilities, guarantee: ProcessingGuarantee): void {
  const c = capabilityForGuarantee(guarantee)
  if (c !== null) requireCapability(caps, c)
}
