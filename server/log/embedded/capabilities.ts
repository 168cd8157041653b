// The embedded log is eoscope's own broker: every fault can be placed at an exact step.

import type { LogCapabilities } from '../capabilities.ts'

export const EMBEDDED_CAPABILITIES: LogCapabilities = { backend: 'embedded', unavailable: {} }
