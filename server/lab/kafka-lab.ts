// The dashboard's lab on a Kafka cluster: the one Lab over worker-process runtimes
// (server/runtime/kafka/kafka-runtimes.ts).

import { type KafkaLabOptions, workerProcessRuntimes } from '../runtime/kafka/kafka-runtimes.ts'
import { Lab } from './lab.ts'

export async function createKafkaLab(options: KafkaLabOptions): Promise<Lab> {
  const lab = new Lab(workerProcessRuntimes(options), options)
  await lab.start()
  return lab
}
