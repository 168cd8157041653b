// SASL against a real broker: the local broker's SASL_PLAINTEXT listener (mechanisms PLAIN,
// SCRAM-SHA-256 and SCRAM-SHA-512, user eoscope, see scripts/kafka/server.properties.template), or
// KAFKA_SASL_BROKERS beside an external KAFKA_BROKERS. The credentials travel in the environment
// only; `eoscope run` passes them to its own clients and, by inheritance, to the worker processes
// it spawns. Those workers produce every output record, so a run that completes with all its
// output proves they authenticated.

import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { connect } from 'node:net'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import kafkajs, { type SASLOptions } from 'kafkajs'
import { describe, expect, inject, it } from 'vitest'
import {
  KAFKA_SASL_MECHANISMS,
  KAFKA_SECURITY_VARIABLES,
  type KafkaSaslMechanism,
} from '../../server/log/kafka/client-security.ts'

const { Kafka, logLevel } = kafkajs
const saslBrokers = inject('kafkaSaslBrokers')
const BIN = fileURLToPath(new URL('../../bin/eoscope.mjs', import.meta.url))
const run = randomUUID().slice(0, 8)
const USER = 'eoscope'
const PASSWORD = 'eoscope-secret'

/** This process's environment without any Kafka security variable, plus the given ones. */
function envWith(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of KAFKA_SECURITY_VARIABLES) delete env[name]
  return { ...env, ...vars }
}

const SASL_ENV = { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: USER, KAFKA_SASL_PASSWORD: PASSWORD }

type Exit = { code: number; stdout: string; stderr: string }

async function eoscope(args: string[], env: NodeJS.ProcessEnv, timeout = 150_000): Promise<Exit> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      env,
      timeout,
      maxBuffer: 16 * 1024 * 1024,
    })
    return { code: 0, stdout, stderr }
  } catch (e) {
    const err = e as { code?: number | string; stdout?: string; stderr?: string }
    return {
      code: typeof err.code === 'number' ? err.code : -1,
      stdout: err.stdout ?? '',
      stderr: err.stderr ?? String(e),
    }
  }
}

function portOpen(hostPort: string): Promise<boolean> {
  const i = hostPort.lastIndexOf(':')
  return new Promise((resolve) => {
    const socket = connect({ host: hostPort.slice(0, i), port: Number(hostPort.slice(i + 1)) })
    socket.setTimeout(3_000)
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('timeout', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', () => resolve(false))
  })
}

/**
 * The SASL listener's address once it is known to answer; otherwise every test that needs it fails
 * (never skips) saying what is missing.
 */
let listener: Promise<string> | null = null
function saslListener(): Promise<string> {
  listener ??= (async () => {
    if (!saslBrokers) {
      throw new Error(
        'no SASL listener to test against: KAFKA_BROKERS names an external broker, so set KAFKA_SASL_BROKERS ' +
          'to its SASL_PLAINTEXT listener ' +
          `(PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 for user ${USER}, password ${PASSWORD}), or unset ` +
          `KAFKA_BROKERS to let the tests start the local broker`,
      )
    }
    const first = saslBrokers.split(',')[0]!
    if (!(await portOpen(first))) {
      throw new Error(
        `nothing answers on the SASL listener ${first}: a local broker started before the listener was added ` +
          `to scripts/kafka/server.properties.template ` +
          'lacks it (restart it: scripts/kafka-broker.sh stop, then start), or KAFKA_SASL_PORT / ' +
          'KAFKA_SASL_BROKERS names the wrong port',
      )
    }
    return saslBrokers
  })()
  return listener
}

describe('SASL on a real broker', () => {
  const admin = async (mechanism: KafkaSaslMechanism, password: string) =>
    new Kafka({
      clientId: `eoscope-sasl-test-${run}`,
      brokers: (await saslListener()).split(','),
      sasl: { mechanism, username: USER, password } as SASLOptions,
      logLevel: logLevel.NOTHING,
      connectionTimeout: 3_000,
      retry: { retries: 0 },
    }).admin()

  it.each(KAFKA_SASL_MECHANISMS)(
    '%s: refuses a wrong password with an authentication error, and accepts the right one',
    async (mechanism) => {
      const wrong = await admin(mechanism, 'not-the-password')
      const refused = await wrong.connect().then(
        () => null,
        (e: unknown) => e as Error,
      )
      await wrong.disconnect()
      expect(refused?.name).toBe('KafkaJSSASLAuthenticationError')
      expect(refused?.message).toMatch(/^SASL (PLAIN|SCRAM SHA(256|512)) authentication failed/)

      const right = await admin(mechanism, PASSWORD)
      try {
        await right.connect()
        const cluster = await right.describeCluster()
        expect(cluster.brokers.length).toBeGreaterThan(0)
      } finally {
        await right.disconnect()
      }
    },
  )

  it.each(['plain', 'scram-sha-512'])(
    'eoscope run with %s credentials in the environment: workers authenticate, exactly_once 0 in every ' +
      'correctness figure',
    { timeout: 180_000 },
    async (mechanism) => {
      const args = [
        'run',
        '--backend',
        'kafka',
        '--brokers',
        await saslListener(),
        '--guarantee',
        'exactly_once',
        '--workers',
        '2',
        '--partitions',
        '2',
        '--records',
        '3000',
        '--json',
        '--application-id',
        `eoscope-e2e-sasl-${mechanism}-${run}`,
      ]
      expect(args.join(' ')).not.toContain(PASSWORD)
      const r = await eoscope(args, envWith({ ...SASL_ENV, KAFKA_SASL_MECHANISM: mechanism }))
      if (r.code !== 0) throw new Error(`eoscope run failed (exit ${r.code}): ${r.stdout}\n${r.stderr}`)
      const summary = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>
      expect(summary.completed).toBe(true)
      expect(summary.backend).toBe('kafka')
      expect(summary.outputRecords).toBe(3000)
      expect({
        duplicates: summary.duplicates,
        lost: summary.lost,
        abortedReads: summary.abortedReads,
        stateMismatches: summary.stateMismatches,
        openTransactions: summary.openTransactions,
      }).toEqual({
        duplicates: 0,
        lost: 0,
        abortedReads: 0,
        stateMismatches: 0,
        openTransactions: 0,
      })
    },
  )

  it('eoscope run with a wrong password stops with the authentication error (exit 1)', {
    timeout: 90_000,
  }, async () => {
    const r = await eoscope(
      [
        'run',
        '--backend',
        'kafka',
        '--brokers',
        await saslListener(),
        '--workers',
        '1',
        '--partitions',
        '1',
        '--records',
        '10',
        '--json',
        '--application-id',
        `eoscope-e2e-sasl-bad-${run}`,
      ],
      envWith({ ...SASL_ENV, KAFKA_SASL_PASSWORD: 'not-the-password' }),
      60_000,
    )
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/authentication failed/i)
    expect(r.stderr).not.toContain('not-the-password')
  })
})

describe('half-configured security', () => {
  // No broker is contacted: the commands refuse to start.
  it.each([
    [
      'run',
      ['run', '--backend', 'kafka', '--brokers', '127.0.0.1:1', '--records', '10'],
      { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: USER },
      /KAFKA_SASL_MECHANISM is plain but KAFKA_SASL_PASSWORD is not set/,
    ],
    [
      'worker',
      ['worker', '--brokers', '127.0.0.1:1', '--application-id', 'x'],
      { KAFKA_SASL_MECHANISM: 'kerberos', KAFKA_SASL_USERNAME: USER, KAFKA_SASL_PASSWORD: PASSWORD },
      /KAFKA_SASL_MECHANISM must be one of plain, scram-sha-256, scram-sha-512/,
    ],
    [
      'sweep',
      ['sweep', '--backend', 'kafka', '--brokers', '127.0.0.1:1', '--no-save'],
      { KAFKA_SSL: 'maybe' },
      /KAFKA_SSL must be true, false, 1 or 0/,
    ],
  ] as const)(
    'eoscope %s refuses it as a usage error (exit 2), naming the variable',
    async (_, args, vars, message) => {
      const r = await eoscope([...args], envWith(vars), 30_000)
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(message)
      expect(r.stderr).not.toContain(PASSWORD)
    },
  )
})
