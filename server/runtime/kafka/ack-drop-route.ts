// The lab's route to the brokers through the ack-drop proxy: worker processes connect to it, and
// each produce ack it loses becomes the runtime's ack-dropped event (the same event the embedded
// log publishes), with the producer id, epoch, sequences and offsets of the batches appended.

import { AckDropProxy, type NetworkDelay } from '../../log/kafka/proxy/ack-drop-proxy.ts'
import type { Time } from '../../log/time.ts'
import type { LabEvent } from '../lab-runtime.ts'

/**
 * Starts the proxy in front of the brokers, a network delay away when given; only produce requests to the output
 * topic lose their ack.
 */
export async function startAckDropProxy(
  brokers: string[],
  outputTopic: string,
  time: Time,
  onDropped: (e: Extract<LabEvent, { type: 'ack-dropped' }>) => void,
  network?: NetworkDelay,
): Promise<AckDropProxy> {
  const proxy = await AckDropProxy.start({ brokers, topics: (t) => t === outputTopic, now: () => time.now(), network })
  proxy.onDropped((d) => {
    const first = d.batches[0]!
    onDropped({
      type: 'ack-dropped',
      clientId: d.transactionalId ?? `producer ${first.producerId}`,
      producerId: first.producerId,
      epoch: first.epoch,
      idempotent: first.producerId >= 0,
      batches: d.batches.map((b) => ({
        topic: b.topic,
        partition: b.partition,
        baseSequence: b.baseSequence,
        baseOffset: b.baseOffset,
        count: b.count,
      })),
      atMs: d.atMs,
    })
  })
  return proxy
}
