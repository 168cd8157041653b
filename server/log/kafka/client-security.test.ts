// TLS and SASL settings from the environment (no broker needed).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  describeKafkaSecurity,
  type Env,
  KafkaSecurityConfigException,
  kafkaSecurityFromEnv,
} from './client-security.ts'

const dir = mkdtempSync(join(tmpdir(), 'eoscope-client-security-'))
const CA = join(dir, 'ca.pem')
const CERT = join(dir, 'client.pem')
const KEY = join(dir, 'client.key')
const EMPTY = join(dir, 'empty.pem')
writeFileSync(CA, '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n')
writeFileSync(CERT, '-----BEGIN CERTIFICATE-----\nclient\n-----END CERTIFICATE-----\n')
writeFileSync(KEY, '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n')
writeFileSync(EMPTY, '')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('kafkaSecurityFromEnv', () => {
  it('returns nothing for a plaintext cluster, so spreading it changes no client config', () => {
    expect(kafkaSecurityFromEnv({})).toEqual({})
    expect(kafkaSecurityFromEnv({ KAFKA_SSL: 'false', KAFKA_SASL_MECHANISM: '', KAFKA_SSL_CA_FILE: '  ' })).toEqual({})
    expect(kafkaSecurityFromEnv({ PATH: '/usr/bin', KAFKA_BROKERS: 'b:9092' })).toEqual({})
  })

  it('turns TLS on with the default trust store for KAFKA_SSL=true or 1', () => {
    expect(kafkaSecurityFromEnv({ KAFKA_SSL: 'true' })).toEqual({ ssl: true })
    expect(kafkaSecurityFromEnv({ KAFKA_SSL: '1' })).toEqual({ ssl: true })
    expect(kafkaSecurityFromEnv({ KAFKA_SSL: 'TRUE', KAFKA_SSL_REJECT_UNAUTHORIZED: 'true' })).toEqual({ ssl: true })
  })

  it('reads the CA, certificate and key files, and any of them implies TLS', () => {
    const sec = kafkaSecurityFromEnv({ KAFKA_SSL_CA_FILE: CA, KAFKA_SSL_CERT_FILE: CERT, KAFKA_SSL_KEY_FILE: KEY })
    expect(typeof sec.ssl).toBe('object')
    const ssl = sec.ssl as { ca: Buffer; cert: Buffer; key: Buffer; rejectUnauthorized?: boolean }
    expect(ssl.ca.toString()).toContain('ca')
    expect(ssl.cert.toString()).toContain('client')
    expect(ssl.key.toString()).toContain('PRIVATE KEY')
    expect(ssl.rejectUnauthorized).toBeUndefined()
    expect(kafkaSecurityFromEnv({ KAFKA_SSL_CA_FILE: CA }).ssl).toEqual({ ca: expect.any(Buffer) })
  })

  it('skips certificate verification only when told to', () => {
    expect(kafkaSecurityFromEnv({ KAFKA_SSL: '1', KAFKA_SSL_REJECT_UNAUTHORIZED: '0' })).toEqual({
      ssl: { rejectUnauthorized: false },
    })
    expect(kafkaSecurityFromEnv({ KAFKA_SSL_CA_FILE: CA, KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' }).ssl).toEqual({
      ca: expect.any(Buffer),
      rejectUnauthorized: false,
    })
  })

  it.each(['plain', 'scram-sha-256', 'scram-sha-512', 'SCRAM-SHA-512'])(
    'passes SASL %s with its username and password through',
    (mechanism) => {
      const sec = kafkaSecurityFromEnv({
        KAFKA_SASL_MECHANISM: mechanism,
        KAFKA_SASL_USERNAME: 'alice',
        KAFKA_SASL_PASSWORD: ' pa ss ',
      })
      expect(sec).toEqual({ sasl: { mechanism: mechanism.toLowerCase(), username: 'alice', password: ' pa ss ' } })
    },
  )

  it('combines SASL and TLS', () => {
    const sec = kafkaSecurityFromEnv({
      KAFKA_SSL: 'true',
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'alice',
      KAFKA_SASL_PASSWORD: 'secret',
    })
    expect(sec).toEqual({ ssl: true, sasl: { mechanism: 'scram-sha-512', username: 'alice', password: 'secret' } })
  })

  const bad: [string, Env, RegExp][] = [
    ['a boolean that is not one', { KAFKA_SSL: 'yes' }, /^KAFKA_SSL must be true, false, 1 or 0; got "yes"$/],
    [
      'a bad KAFKA_SSL_REJECT_UNAUTHORIZED',
      { KAFKA_SSL: '1', KAFKA_SSL_REJECT_UNAUTHORIZED: 'no' },
      /^KAFKA_SSL_REJECT_UNAUTHORIZED must be/,
    ],
    [
      'KAFKA_SSL_REJECT_UNAUTHORIZED without TLS',
      { KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' },
      /^KAFKA_SSL_REJECT_UNAUTHORIZED applies to TLS only/,
    ],
    [
      'KAFKA_SSL_REJECT_UNAUTHORIZED with TLS off',
      { KAFKA_SSL: '0', KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' },
      /^KAFKA_SSL_REJECT_UNAUTHORIZED is set but KAFKA_SSL is false/,
    ],
    [
      'a file with TLS off',
      { KAFKA_SSL: 'false', KAFKA_SSL_CA_FILE: CA },
      /^KAFKA_SSL_CA_FILE is set but KAFKA_SSL is false/,
    ],
    [
      'a missing file',
      { KAFKA_SSL_CA_FILE: join(dir, 'missing.pem') },
      /^KAFKA_SSL_CA_FILE: cannot read ".*missing\.pem" \(ENOENT\)$/,
    ],
    [
      'a directory for a file',
      { KAFKA_SSL_KEY_FILE: dir, KAFKA_SSL_CERT_FILE: CERT },
      /^KAFKA_SSL_KEY_FILE: cannot read .* \(EISDIR\)$/,
    ],
    ['an empty file', { KAFKA_SSL_CA_FILE: EMPTY }, /^KAFKA_SSL_CA_FILE: ".*empty\.pem" is empty$/],
    ['a certificate without its key', { KAFKA_SSL_CERT_FILE: CERT }, /^KAFKA_SSL_CERT_FILE needs KAFKA_SSL_KEY_FILE/],
    ['a key without its certificate', { KAFKA_SSL_KEY_FILE: KEY }, /^KAFKA_SSL_KEY_FILE needs KAFKA_SSL_CERT_FILE/],
    [
      'an unknown mechanism',
      { KAFKA_SASL_MECHANISM: 'gssapi', KAFKA_SASL_USERNAME: 'a', KAFKA_SASL_PASSWORD: 'b' },
      /^KAFKA_SASL_MECHANISM must be one of plain, scram-sha-256, scram-sha-512; got "gssapi"$/,
    ],
    [
      'a mechanism without a username',
      { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_PASSWORD: 'b' },
      /^KAFKA_SASL_MECHANISM is plain but KAFKA_SASL_USERNAME is not set$/,
    ],
    [
      'a mechanism without a password',
      { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'a', KAFKA_SASL_PASSWORD: '' },
      /^KAFKA_SASL_MECHANISM is plain but KAFKA_SASL_PASSWORD is not set$/,
    ],
    [
      'a username without a mechanism',
      { KAFKA_SASL_USERNAME: 'a', KAFKA_SASL_PASSWORD: 'b' },
      /^KAFKA_SASL_USERNAME is set but KAFKA_SASL_MECHANISM is not/,
    ],
    [
      'a password without a mechanism',
      { KAFKA_SASL_PASSWORD: 'b' },
      /^KAFKA_SASL_PASSWORD is set but KAFKA_SASL_MECHANISM is not/,
    ],
  ]
  it.each(bad)('refuses %s, naming the variable', (_, env, message) => {
    let thrown: unknown
    try {
      kafkaSecurityFromEnv(env)
    } catch (e) {
      thrown = e
    }
    expect(thrown).toBeInstanceOf(KafkaSecurityConfigException)
    expect((thrown as Error).name).toBe('KafkaSecurityConfigException')
    expect((thrown as Error).message).toMatch(message)
  })

  it('never puts the password in an error message', () => {
    expect(() =>
      kafkaSecurityFromEnv({
        KAFKA_SASL_MECHANISM: 'oauthbearer',
        KAFKA_SASL_USERNAME: 'a',
        KAFKA_SASL_PASSWORD: 'hunter2-secret',
      }),
    ).toThrow(expect.objectContaining({ message: expect.not.stringContaining('hunter2-secret') }))
  })
})

describe('describeKafkaSecurity', () => {
  it('names the security protocol the way Kafka does, with no secret in it', () => {
    const sasl = { mechanism: 'scram-sha-512', username: 'alice', password: 'hunter2-secret' } as const
    expect(describeKafkaSecurity({})).toBe('PLAINTEXT')
    expect(describeKafkaSecurity({ ssl: false })).toBe('PLAINTEXT')
    expect(describeKafkaSecurity({ ssl: true })).toBe('SSL')
    expect(describeKafkaSecurity({ sasl })).toBe('SASL_PLAINTEXT (scram-sha-512 as alice)')
    expect(describeKafkaSecurity({ ssl: true, sasl })).toBe('SASL_SSL (scram-sha-512 as alice)')
    const full = describeKafkaSecurity(
      kafkaSecurityFromEnv({
        KAFKA_SSL_CA_FILE: CA,
        KAFKA_SSL_CERT_FILE: CERT,
        KAFKA_SSL_KEY_FILE: KEY,
        KAFKA_SSL_REJECT_UNAUTHORIZED: '0',
        KAFKA_SASL_MECHANISM: 'plain',
        KAFKA_SASL_USERNAME: 'bob',
        KAFKA_SASL_PASSWORD: 'hunter2-secret',
      }),
    )
    expect(full).toBe('SASL_SSL (plain as bob; own CA; client certificate; broker certificates NOT verified)')
    expect(full).not.toContain('hunter2')
  })
})
