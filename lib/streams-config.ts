// Kafka Streams configuration, under Kafka Streams' own names.
// Isomorphic: used by the engine, the lab, the CLI and the dashboard alike.

export const PROCESSING_GUARANTEES = ['at_least_once', 'exactly_once', 'exactly_once_v2'] as const
export type ProcessingGuarantee = (typeof PROCESSING_GUARANTEES)[number]

export const ISOLATION_LEVELS = ['read_committed', 'read_uncommitted'] as const
export type IsolationLevel = (typeof ISOLATION_LEVELS)[number]

export interface StreamsConfig {
  'application.id': string
  'processing.guarantee': ProcessingGuarantee
  'commit.interval.ms': number
  'transaction.timeout.ms': number
  'session.timeout.ms': number
  'heartbeat.interval.ms': number
  'enable.idempotence': boolean
  'isolation.level': IsolationLevel
  'max.poll.records': number
}

/** Kafka Streams' own defaults, shown beside eoscope's demo defaults. */
export const KAFKA_STREAMS_DEFAULTS = {
  commitIntervalMs: { at_least_once: 30_000, exactly_once: 100, exactly_once_v2: 100 } as Record<ProcessingGuarantee, number>,
  transactionTimeoutMs: 10_000, // Streams sets this for its transactional producers
  sessionTimeoutMs: 45_000, // consumer default since Kafka 3.0
  heartbeatIntervalMs: 3_000,
  maxPollRecords: 1_000,
} as const

/**
 * eoscope's defaults. Where they differ from Kafka Streams' they are demo-friendly and labelled so:
 * a 30 s commit interval and a 45 s session timeout would make a live lab look frozen.
 */
export const EOSCOPE_DEFAULTS = {
  commitIntervalMs: { at_least_once: 1_000, exactly_once: 100, exactly_once_v2: 100 } as Record<ProcessingGuarantee, number>,
  transactionTimeoutMs: 10_000,
  sessionTimeoutMs: 1_000,
  heartbeatIntervalMs: 200,
  maxPollRecords: 1_000,
} as const

export function defaultStreamsConfig(guarantee: ProcessingGuarantee = 'exactly_once', applicationId = 'eoscope'): StreamsConfig {
  return {
    'application.id': applicationId,
    'processing.guarantee': guarantee,
    'commit.interval.ms': EOSCOPE_DEFAULTS.commitIntervalMs[guarantee],
    'transaction.timeout.ms': EOSCOPE_DEFAULTS.transactionTimeoutMs,
    'session.timeout.ms': EOSCOPE_DEFAULTS.sessionTimeoutMs,
    'heartbeat.interval.ms': EOSCOPE_DEFAULTS.heartbeatIntervalMs,
    'enable.idempotence': true,
    'isolation.level': guarantee === 'at_least_once' ? 'read_uncommitted' : 'read_committed',
    'max.poll.records': EOSCOPE_DEFAULTS.maxPollRecords,
  }
}

/** What a run, a scenario or a worker may set beyond the defaults. */
export interface StreamsOverrides {
  applicationId?: string
  commitIntervalMs?: number
  transactionTimeoutMs?: number
  sessionTimeoutMs?: number
  /** Only under at_least_once: exactly-once forces it on. */
  idempotence?: boolean
  maxPollRecords?: number
}

/**
 * The defaults for a guarantee with overrides applied (not yet validated). A shorter
 * session.timeout.ms brings heartbeat.interval.ms down to a third of it, as Kafka advises.
 */
export function streamsConfigFor(guarantee: ProcessingGuarantee, o: StreamsOverrides = {}): StreamsConfig {
  const c = defaultStreamsConfig(guarantee, o.applicationId)
  if (o.commitIntervalMs !== undefined) c['commit.interval.ms'] = o.commitIntervalMs
  if (o.transactionTimeoutMs !== undefined) c['transaction.timeout.ms'] = o.transactionTimeoutMs
  if (o.sessionTimeoutMs !== undefined) {
    c['session.timeout.ms'] = o.sessionTimeoutMs
    c['heartbeat.interval.ms'] = Math.max(1, Math.min(c['heartbeat.interval.ms'], Math.floor(o.sessionTimeoutMs / 3)))
  }
  if (o.maxPollRecords !== undefined) c['max.poll.records'] = o.maxPollRecords
  if (o.idempotence !== undefined && guarantee === 'at_least_once') c['enable.idempotence'] = o.idempotence
  return c
}

export function isExactlyOnce(guarantee: ProcessingGuarantee): boolean {
  return guarantee !== 'at_least_once'
}

export class ConfigException extends Error {
  readonly name = 'ConfigException'
  constructor(
    readonly config: string,
    readonly value: unknown,
    reason: string,
  ) {
    // Kafka's own message shape: "Invalid value X for configuration Y: reason"
    super(`Invalid value ${JSON.stringify(value)} for configuration ${config}: ${reason}`)
  }
}

/** Bounds eoscope accepts; outside them a config is refused with a ConfigException. */
export const CONFIG_BOUNDS = {
  'commit.interval.ms': { min: 1, max: 600_000 },
  'transaction.timeout.ms': { min: 1, max: 900_000 }, // broker default transaction.max.timeout.ms
  'session.timeout.ms': { min: 10, max: 1_800_000 },
  'heartbeat.interval.ms': { min: 1, max: 1_800_000 },
  'max.poll.records': { min: 1, max: 100_000 },
} as const

/**
 * Validates a complete config with Kafka's rules: returns it, or throws ConfigException.
 * Pure: it never changes its argument.
 */
export function validateStreamsConfig(config: StreamsConfig): StreamsConfig {
  if (typeof config['application.id'] !== 'string' || !/^[A-Za-z0-9._-]{1,200}$/.test(config['application.id'])) {
    throw new ConfigException('application.id', config['application.id'], 'must be 1-200 characters of [A-Za-z0-9._-]')
  }
  if (!PROCESSING_GUARANTEES.includes(config['processing.guarantee'])) {
    throw new ConfigException('processing.guarantee', config['processing.guarantee'], `String must be one of: ${PROCESSING_GUARANTEES.join(', ')}`)
  }
  if (!ISOLATION_LEVELS.includes(config['isolation.level'])) {
    throw new ConfigException('isolation.level', config['isolation.level'], `String must be one of: ${ISOLATION_LEVELS.join(', ')}`)
  }
  if (typeof config['enable.idempotence'] !== 'boolean') {
    throw new ConfigException('enable.idempotence', config['enable.idempotence'], 'Expected value to be either true or false')
  }
  for (const [name, { min, max }] of Object.entries(CONFIG_BOUNDS) as [keyof typeof CONFIG_BOUNDS, { min: number; max: number }][]) {
    const v = config[name]
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new ConfigException(name, v, 'Expected an integer')
    if (v < min || v > max) throw new ConfigException(name, v, `Value must be in [${min}, ${max}]`)
  }
  if (config['heartbeat.interval.ms'] >= config['session.timeout.ms']) {
    throw new ConfigException('heartbeat.interval.ms', config['heartbeat.interval.ms'], 'must be lower than session.timeout.ms')
  }
  const guarantee = config['processing.guarantee']
  if (isExactlyOnce(guarantee)) {
    // Streams forces these for exactly-once and refuses a user override.
    if (!config['enable.idempotence']) {
      throw new ConfigException('enable.idempotence', false, `Cannot set enable.idempotence to false when processing.guarantee is ${guarantee}`)
    }
    if (config['isolation.level'] !== 'read_committed') {
      throw new ConfigException('isolation.level', config['isolation.level'], `must be read_committed when processing.guarantee is ${guarantee}`)
    }
    // StreamsConfig: "transaction.timeout.ms should be greater than commit.interval.ms" (KIP-447 era check).
    if (config['transaction.timeout.ms'] < config['commit.interval.ms']) {
      throw new ConfigException(
        'transaction.timeout.ms',
        config['transaction.timeout.ms'],
        `transaction.timeout.ms (${config['transaction.timeout.ms']}) must not be lower than commit.interval.ms (${config['commit.interval.ms']}) when processing.guarantee is ${guarantee}`,
      )
    }
  }
  return config
}

/** Applies a partial change, then validates; the input config is never changed. */
export function withConfigChange(config: StreamsConfig, change: Partial<StreamsConfig>): StreamsConfig {
  const next: StreamsConfig = { ...config, ...change }
  if (change['processing.guarantee'] && change['processing.guarantee'] !== config['processing.guarantee']) {
    const g = change['processing.guarantee']
    if (isExactlyOnce(g)) {
      if (change['enable.idempotence'] === undefined) next['enable.idempotence'] = true
      if (change['isolation.level'] === undefined) next['isolation.level'] = 'read_committed'
    }
  }
  return validateStreamsConfig(next)
}
