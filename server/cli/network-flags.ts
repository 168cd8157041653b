// The network between the worker processes and the brokers, as `eoscope run` and `eoscope sweep`
// take it: two flags, one meaning, one delay (both directions alike), one refusal off Kafka.

import { type NetworkDelay, networkInWords } from '../log/kafka/proxy/ack-drop-proxy.ts'
import { UsageError } from './flags.ts'

export const NETWORK_FLAGS = {
  'network-latency-ms': {
    type: 'number',
    meaning:
      'one-way latency between the worker processes and the brokers, each way, as if they were a network apart ' +
      '(--backend kafka: the workers then connect through a proxy that delays each frame)',
    range: { min: 0, max: 10_000 },
    integer: false,
    default: 0,
  },
  'network-jitter-ms': {
    type: 'number',
    meaning: 'jitter added to each frame on top of --network-latency-ms, drawn from [0, MS) by --seed, order kept',
    range: { min: 0, max: 10_000 },
    integer: false,
    default: 0,
  },
} as const

export interface NetworkFlags {
  'network-latency-ms': number
  'network-jitter-ms': number
}

/** The delay the flags ask for, both directions alike, drawn by `seed`; null: none. */
export function networkDelayOf(f: NetworkFlags, seed: number): NetworkDelay | null {
  const delay = { latencyMs: f['network-latency-ms'], jitterMs: f['network-jitter-ms'] }
  return delay.latencyMs === 0 && delay.jitterMs === 0 ? null : { request: delay, response: delay, seed }
}

/** A network delay asked of the embedded log (it has --latency-model) is a usage error. */
export function requireKafkaForNetwork(f: NetworkFlags, backend: string): void {
  if (backend !== 'kafka' && (f['network-latency-ms'] > 0 || f['network-jitter-ms'] > 0))
    throw new UsageError(
      '--network-latency-ms and --network-jitter-ms need --backend kafka (the embedded log has --latency-model)',
    )
}

/** What a run or sweep with a network delay is called: the delay, in words. */
export function networkLabel(n: NetworkDelay): string {
  return `kafka, ${networkInWords(n)}`
}
