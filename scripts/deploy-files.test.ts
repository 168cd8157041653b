// docker-compose.yml must run what the tests exercise: the broker version of scripts/kafka/pom.xml,
// and for the single broker every setting of the local broker's server.properties that changes
// how transactions and groups behave. (`docker-compose config -q` in .ci/run checks the syntax.)

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const compose = readFileSync(new URL('../docker-compose.yml', import.meta.url), 'utf8')
const pom = readFileSync(new URL('./kafka/pom.xml', import.meta.url), 'utf8')
const props = readFileSync(new URL('./kafka/server.properties.template', import.meta.url), 'utf8')

/** server.properties keys, without the listener/JAAS lines that a container sets its own way. */
function brokerSettings(): Map<string, string> {
  const out = new Map<string, string>()
  for (const line of props.replace(/\\\n\s*/g, '').split('\n')) {
    const m = /^([a-z0-9.]+)=(.*)$/.exec(line.trim())
    if (m) out.set(m[1]!, m[2]!.trim())
  }
  return out
}

/**
 * The `KAFKA_*` variables of the x-kafka-single block, as the apache/kafka image
 * maps them (dots to underscores, upper case).
 */
function singleBrokerEnv(): Map<string, string> {
  const block = compose.slice(
    compose.indexOf('x-kafka-single:'),
    compose.indexOf('\n\n', compose.indexOf('x-kafka-single:')),
  )
  const out = new Map<string, string>()
  for (const m of block.matchAll(/^\s+(KAFKA_[A-Z0-9_]+):\s*"?([^"#\n]*)"?/gm)) out.set(m[1]!, m[2]!.trim())
  return out
}

const CONTAINER_OWN = new RegExp(
  '^(listeners|advertised\\.listeners|listener\\.|controller\\.|inter\\.broker|sasl\\.|log\\.dirs|node\\.id|' +
    'process\\.roles|num\\.network\\.threads|num\\.io\\.threads|log\\.retention\\.hours)',
)

describe('docker-compose.yml against the local broker the tests use', () => {
  it('pins the apache/kafka image to the version of the broker jars', () => {
    const version = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(pom)?.[1]
    expect(version).toMatch(/^\d+\.\d+\.\d+$/)
    expect(compose).toContain(`apache/kafka:${version}`)
  })

  it('sets every transaction and group setting of the local broker to the same value on the single broker', () => {
    const env = singleBrokerEnv()
    const checked: string[] = []
    for (const [key, value] of brokerSettings()) {
      if (CONTAINER_OWN.test(key)) continue
      const name = `KAFKA_${key.toUpperCase().replace(/\./g, '_')}`
      expect(env.get(name), `${name} (server.properties ${key}=${value})`).toBe(value)
      checked.push(key)
    }
    expect(checked).toEqual(
      expect.arrayContaining([
        'transaction.state.log.replication.factor',
        'transaction.state.log.min.isr',
        'group.min.session.timeout.ms',
        'transaction.abort.timed.out.transaction.cleanup.interval.ms',
        'auto.create.topics.enable',
      ]),
    )
  })

  it('runs the app on Kafka and workers that follow the lab', () => {
    expect(compose).toMatch(/EOSCOPE_BACKEND: kafka/)
    expect(compose).toMatch(/eoscope worker[^\n]*--follow-lab/)
  })
})
