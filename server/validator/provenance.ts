// Provenance of the records the validator matches against the input: output and changelog values
// carry it in their JSON (lib/records.ts); a dead-letter record carries it in the headers Kafka
// Streams' dead letter queue uses (KIP-1034), or, failing those, in a JSON value with a `source`.

import type { Headers } from '../log/types.ts'
import type { Provenance } from '../../lib/records.ts'

import { DLQ_HEADERS } from '../../lib/records.ts'

export const DLQ_HEADER_TOPIC = DLQ_HEADERS.topic
export const DLQ_HEADER_PARTITION = DLQ_HEADERS.partition
export const DLQ_HEADER_OFFSET = DLQ_HEADERS.offset

function nonNegativeInteger(text: string | undefined): number | null {
  if (text === undefined || !/^\d{1,15}$/.test(text)) return null
  return Number(text)
}

function provenanceFromHeaders(headers: Headers | undefined, inputTopic: string): Provenance | null {
  if (!headers) return null
  const topic = headers[DLQ_HEADER_TOPIC]
  if (topic !== undefined && topic !== inputTopic) return null
  const partition = nonNegativeInteger(headers[DLQ_HEADER_PARTITION])
  const offset = nonNegativeInteger(headers[DLQ_HEADER_OFFSET])
  return partition === null || offset === null ? null : { partition, offset }
}

function provenanceFromValue(value: string | null): Provenance | null {
  if (value === null) return null
  try {
    const source = (JSON.parse(value) as { source?: Partial<Provenance> } | null)?.source
    if (Number.isInteger(source?.partition) && Number.isInteger(source?.offset))
      return { partition: source!.partition!, offset: source!.offset! }
  } catch {
    // not JSON: no provenance
  }
  return null
}

/** The input record a dead-letter record stands for; null when it names none. */
export function dlqProvenance(
  r: { headers: Headers | undefined; value: string | null },
  inputTopic: string,
): Provenance | null {
  return provenanceFromHeaders(r.headers, inputTopic) ?? provenanceFromValue(r.value)
}
