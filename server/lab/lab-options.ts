// How a dashboard lab is made: its loops' settings, and an in-process lab's runtime options.

import type { ProcessingGuarantee } from '../../lib/streams-config.ts'
import type { InProcessLabOptions } from '../runtime/runtime-factory.ts'

export interface LabLoopOptions {
  ratePerSec?: number
  guarantee?: ProcessingGuarantee
  snapshotIntervalMs?: number
  validateIntervalMs?: number
}

export type LabOptions = LabLoopOptions & Partial<InProcessLabOptions>
