// vitest globalSetup for the tests that need a Kafka broker (vitest.kafka.config.ts).
// Starts the local broker with scripts/kafka-broker.sh unless KAFKA_BROKERS names one already
// running, and stops it at the end if it started it. A broker that cannot be started fails the
// run: these tests never skip for want of a broker or a JDK.
//
// kafkaSaslBrokers is the broker's SASL_PLAINTEXT listener (mechanism PLAIN, user eoscope, password
// eoscope-secret, as scripts/kafka/server.properties.template sets it up): the local broker's
// KAFKA_SASL_PORT (default KAFKA_PORT+2), or KAFKA_SASL_BROKERS beside an external KAFKA_BROKERS.
// With an external broker and no KAFKA_SASL_BROKERS it is empty, and the SASL tests fail saying so.

import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string
    kafkaSaslBrokers: string
  }
}

const SCRIPT = fileURLToPath(new URL('../../../scripts/kafka-broker.sh', import.meta.url))

function broker(command: 'start' | 'stop' | 'status'): boolean {
  try {
    execFileSync('bash', [SCRIPT, command], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 10 * 60_000 })
    return true
  } catch {
    return false
  }
}

export default function setup(project: TestProject): (() => void) | undefined {
  const external = process.env.KAFKA_BROKERS
  if (external) {
    project.provide('kafkaBrokers', external)
    project.provide('kafkaSaslBrokers', process.env.KAFKA_SASL_BROKERS ?? '')
    return undefined
  }
  const port = process.env.KAFKA_PORT ?? '19092'
  const wasRunning = broker('status')
  if (!wasRunning && !broker('start')) {
    throw new Error(
      `could not start the local Kafka broker on port ${port} (scripts/kafka-broker.sh start failed; it needs ` +
        `java 17+ and mvn, see .kafka/broker.log)`,
    )
  }
  project.provide('kafkaBrokers', `127.0.0.1:${port}`)
  project.provide('kafkaSaslBrokers', `127.0.0.1:${process.env.KAFKA_SASL_PORT ?? Number(port) + 2}`)
  return () => {
    if (!wasRunning) broker('stop')
  }
}
