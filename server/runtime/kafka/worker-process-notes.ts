// What the worker-process runtime measures or shows differently from the in-process one, said
// plainly in results and on the dashboard; and how a finished run waits for its last markers.

import type { LogInspector } from '../../log/types.ts'
import { isRetriable } from '../../engine/retry-until-deadline.ts'
import type { RuntimeWording } from '../lab-runtime.ts'
import { KAFKA_GROUP_TIMEOUTS } from '../../log/kafka/capabilities.ts'
import { hasNetworkDelay, type NetworkDelay, networkInWords } from '../../log/kafka/proxy/ack-drop-proxy.ts'
import { GROUP_POLL_MS } from './group-watch.ts'

/** How often the dashboard reads visible output on a cluster (a read_committed fetch per partition per poll). */
export const KAFKA_VISIBILITY_POLL_MS = 100

export const KAFKA_RUN_NOTES: readonly string[] = [
  'droppedAcks counts produce acks to the output topic lost by the ack-drop proxy between the worker processes ' +
    'and the brokers (--drop-acks): the broker appended the batch, the worker never heard, and its producer ' +
    'retried.',
  'fenced counts the task migrations that workers reported (a fenced producer or lost partitions); the broker ' +
    'tells no client about the fencings it does.',
  'transactions are counted from the COMMIT and ABORT markers the log holds, each once by producer id and epoch ' +
    "(the broker's aborts of a killed worker's open transaction included); transactionMarkers counts the markers, " +
    "one per partition a transaction touched; transactionsReported comes from the workers' txn-end telemetry, " +
    "which a killed worker's open transaction is not among.",
  `detection is observed by polling describeGroups every ${GROUP_POLL_MS} ms; a parent's SIGKILL takes the ` +
    `position at kill from the worker's last status (at most ~100 ms old, a lower bound); a kill at a step is ` +
    `reported exactly by the worker before it dies.`,
]

export const KAFKA_LAB_NOTES: readonly string[] = [
  `Detection of a killed worker takes up to session.timeout.ms (the settings show it; ` +
    `${KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs} ms on Kafka by default, heartbeats every ` +
    `${KAFKA_GROUP_TIMEOUTS.heartbeatIntervalMs} ms): a shorter session detects sooner, but a busy machine then ` +
    `has members removed for missed heartbeats.`,
  'Workers are operating-system processes (eoscope worker): kill is SIGKILL, pause is SIGSTOP and resume SIGCONT.',
  "Drop ack: the local worker processes reach the brokers through eoscope's ack-drop proxy, which lets a " +
    'produce request to the output topic through and closes the connection when its response comes back (workers ' +
    'started elsewhere with --follow-lab connect directly and keep their acks).',
  `Visible output and end-to-end latency come from a read_committed fetch of each output partition every ` +
    `${KAFKA_VISIBILITY_POLL_MS} ms: latency is known to within that.`,
  'Per-partition sequence numbers are shown on the embedded backend only; here the partition log view shows ' +
    "each record's producer id, epoch and sequence as the broker stores them.",
]

/**
 * The Kafka wording, with the network the worker processes sit behind when there is one: the
 * latency control then names the delay, and the page's header shows it.
 */
export function kafkaWording(network: NetworkDelay | undefined): RuntimeWording {
  if (network === undefined || !hasNetworkDelay(network)) return KAFKA_WORDING
  const words = networkInWords(network)
  return {
    ...KAFKA_WORDING,
    latencyModel: `${words}, each way (eoscope's proxy holds every frame), and the broker's real latency: no model`,
    network: words,
  }
}

export const KAFKA_WORDING: RuntimeWording = {
  killed: ' (SIGKILL)',
  paused: ' (SIGSTOP): zombie to be',
  resumed: ' (SIGCONT)',
  restarted: ': worker processes restarted',
  added: ' (new process)',
  latencyModel: 'real network and broker latency: no model',
  failHandler:
    "the Kafka backend's workers use log-and-continue (poison records go to the dead-letter topic); the fail " +
    'policy is shown on the embedded backend',
}

/** How long a finished run waits for the last transactions' markers before it is validated. */
const MARKERS_GRACE_MS = 5_000

/** Waits until every partition of these topics has its last stable offset at its high watermark, or the time is up. */
export async function untilStable(
  inspector: LogInspector,
  topics: string[],
  withinMs = MARKERS_GRACE_MS,
): Promise<void> {
  const deadline = Date.now() + withinMs
  let existing: Map<string, number> | null = null
  for (;;) {
    let open = false
    try {
      existing ??= new Map((await inspector.topics()).map((t) => [t.topic, t.partitions]))
      for (const topic of topics) {
        for (let partition = 0; partition < (existing.get(topic) ?? 0); partition++) {
          const o = await inspector.offsets({ topic, partition })
          if (o.lastStableOffset < o.highWatermark) open = true
        }
      }
    } catch (e) {
      // A broker away (its partitions' leaders moving) answers later: a retriable failure is waited out, within the
      // grace; the validator that follows reads the markers and retries on its own.
      if (!isRetriable(e)) throw e
      open = true
    }
    if (!open || Date.now() > deadline) return
    await new Promise((r) => setTimeout(r, 50))
  }
}
