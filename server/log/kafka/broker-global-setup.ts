// vitest globalSetup for the tests that need a Kafka broker (vitest.kafka.config.ts).
// Starts the local broker with scripts/kafka-broker.sh unless KAFKA_BROKERS names one already
// running, and stops it at the end if it started it. A broker that cannot be started fails the
// run: these tests never skip for want of a broker or a JDK.

import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string
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
    return undefined
  }
  const port = process.env.KAFKA_PORT ?? '19092'
  const wasRunning = broker('status')
  if (!wasRunning && !broker('start')) {
    throw new Error(`could not start the local Kafka broker on port ${port} (scripts/kafka-broker.sh start failed; it needs java 17+ and mvn, see .kafka/broker.log)`)
  }
  project.provide('kafkaBrokers', `127.0.0.1:${port}`)
  return () => {
    if (!wasRunning) broker('stop')
  }
}
