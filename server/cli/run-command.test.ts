import { describe, expect, it } from 'vitest'
import { parseCommandLine, UsageError } from './flags.ts'
import { recoveriesLine, rolesInShort, RUN, runOptionsOf } from './run-command.ts'

function optionsOf(argv: string[]) {
  const line = parseCommandLine(RUN, argv)
  if (line.help) throw new Error('expected flags, got --help')
  return runOptionsOf(line.flags)
}

describe('eoscope run --prefill', () => {
  it('asks the run for a backlog written before the workers start', () => {
    expect(optionsOf(['--prefill', '--records', '1000']).prefill).toBe(true)
    expect(optionsOf(['--records', '1000']).prefill).toBe(false)
  })

  it('refuses faults, which fall while input is fed, and would silently not happen', () => {
    expect(() => optionsOf(['--prefill', '--kill-every', '200'])).toThrow(/--prefill measures a run without faults/)
    expect(() => optionsOf(['--prefill', '--drop-acks', '3'])).toThrow(/--prefill measures a run without faults/)
  })

  it('refuses a rate: a prefill writes as fast as it can', () => {
    expect(() => optionsOf(['--prefill', '--rate', '500'])).toThrow(UsageError)
    expect(() => optionsOf(['--prefill', '--rate', '500'])).toThrow(/--prefill .* takes no --rate/)
  })
})

describe("a run's input rate", () => {
  it('is --rate when given, with or without kills', () => {
    expect(optionsOf(['--rate', '500'])).toMatchObject({ rate: 500 })
    expect(optionsOf(['--rate', '500', '--kill-every', '200']).rateChosen).toBeUndefined()
    expect(optionsOf(['--rate', '500', '--kill-every', '200']).rate).toBe(500)
  })

  it('is as fast as possible without --rate and without kills', () => {
    expect(optionsOf([]).rate).toBe(Number.POSITIVE_INFINITY)
  })

  it('is paced for about four kills under --kill-every without --rate: the input lasts five kill intervals', () => {
    const o = optionsOf(['--kill-every', '500', '--records', '100000'])
    expect(o.rate).toBe(40_000)
    expect(o.rateChosen).toBe('paced for about 4 kills: --kill-every 500 without --rate')
    expect((o.records / o.rate) * 1000).toBe(5 * 500)
    expect(optionsOf(['--kill-every', '3000', '--records', '7']).rate).toBe(1)
  })

  it('is paced to last 2 s under --drop-acks alone, so that the drops fall while the input is fed', () => {
    const o = optionsOf(['--drop-acks', '5', '--records', '100000'])
    expect(o.rate).toBe(50_000)
    expect(o.rateChosen).toBe('paced to last 2 s, the lost acks spread over it: --drop-acks, no --rate')
    expect(optionsOf(['--drop-acks', '5', '--kill-every', '500']).rateChosen).toMatch(/^paced for about 4 kills/)
  })
})

describe('eoscope run --network-latency-ms', () => {
  const kafka = ['--backend', 'kafka', '--brokers', '127.0.0.1:29192']
  it('puts the same one-way delay each way between the workers and the brokers, its jitter seeded by --seed', () => {
    const o = optionsOf([...kafka, '--network-latency-ms', '1.5', '--network-jitter-ms', '0.5', '--seed', '9'])
    const delay = { latencyMs: 1.5, jitterMs: 0.5 }
    expect(o.kafka?.network).toEqual({ request: delay, response: delay, seed: 9 })
  })

  it('asks for no delay by default', () => {
    expect(optionsOf(kafka).kafka?.network).toBeUndefined()
  })

  it('is refused on the embedded log, which has its latency model', () => {
    expect(() => optionsOf(['--network-latency-ms', '1'])).toThrow(UsageError)
    expect(() => optionsOf(['--network-jitter-ms', '1'])).toThrow(/need --backend kafka .*--latency-model/)
  })
})

describe('eoscope run --kill-broker-every', () => {
  const kafka = ['--backend', 'kafka', '--brokers', '127.0.0.1:29192']
  it('asks the run for broker kills on the cluster named, aimed as asked, restarted after 9 s by default', () => {
    const o = optionsOf([...kafka, '--kill-broker-every', '15000', '--cluster-dir', '/tmp/cluster'])
    expect(o.brokerFaults).toEqual({ killEveryMs: 15_000, restartAfterMs: 9_000, target: 'cycle' })
    expect(o.kafka?.localBrokersDir).toBe('/tmp/cluster')
    const aimed = optionsOf([
      ...kafka,
      '--kill-broker-every',
      '20000',
      '--restart-broker-after',
      '5000',
      '--kill-broker-target',
      'group-coordinator',
      '--cluster-dir',
      '/tmp/cluster',
    ])
    expect(aimed.brokerFaults).toEqual({ killEveryMs: 20_000, restartAfterMs: 5_000, target: 'group-coordinator' })
    expect(optionsOf(kafka).brokerFaults).toBeUndefined()
  })

  it('refuses broker kills off Kafka, or without the cluster started by scripts/kafka-cluster.sh', () => {
    expect(() => optionsOf(['--kill-broker-every', '15000'])).toThrow(/need --backend kafka/)
    const saved = process.env.KAFKA_CLUSTER_DIR
    delete process.env.KAFKA_CLUSTER_DIR
    try {
      expect(() => optionsOf([...kafka, '--kill-broker-every', '15000'])).toThrow(/--cluster-dir or KAFKA_CLUSTER_DIR/)
    } finally {
      if (saved !== undefined) process.env.KAFKA_CLUSTER_DIR = saved
    }
  })

  it("the summary's broker line counts a broker's partitions and transactional ids", () => {
    expect(
      rolesInShort([
        'active controller',
        'leader of a-0, a-1, b-3',
        'group coordinator',
        'transaction coordinator of x',
      ]),
    ).toBe('active controller, leader of 3 partitions, group coordinator, transaction coordinator of 1 id')
    expect(rolesInShort([])).toBe('no role for the run')
  })
})

describe("the summary's recoveries line", () => {
  const recoveryMedianAndMax =
    'gives the median of the measured recoveries (the mean of the middle two for an even count) and the maximum, ' +
    'in whole ms'
  it(recoveryMedianAndMax, () => {
    expect(
      recoveriesLine([
        { ms: 16056.14892578125 },
        { ms: 26293.738525390625 },
        { ms: null },
        { ms: 12000.4 },
        { ms: 14000.6 },
      ]),
    ).toBe('  recoveries            4 measured (recovery time), median 15028 ms, max 26294 ms')
    expect(recoveriesLine([{ ms: 900.2 }])).toMatch(/1 measured \(recovery time\), median 900 ms, max 900 ms$/)
  })

  it('is left out when no recovery completed', () => {
    expect(recoveriesLine([{ ms: null }])).toBeNull()
    expect(recoveriesLine([])).toBeNull()
  })
})

describe("a run's warnings", () => {
  it('say when a kill schedule killed nothing (with a rate that would) and when workers were missing', async () => {
    const { runWarnings } = await import('../runs/headless-run.ts')
    const o = { workers: 3, killEveryMs: 500, records: 100_000 }
    expect(runWarnings(o, { liveAtEnd: 3, kills: 0, durationMs: 272.4 })).toEqual([
      'no kill fell: the run ended after 272 ms, before its first kill was due (--kill-every 500); feed the input ' +
        'for longer, --rate 40000 for about 4 kills',
    ])
    expect(runWarnings(o, { liveAtEnd: 3, kills: 4, durationMs: 2_100 })).toEqual([])
    expect(runWarnings({ ...o, killEveryMs: null }, { liveAtEnd: 2, kills: 0, durationMs: 300 })).toEqual([
      'the run ended with 2 live workers of the 3 it started',
    ])
  })
})
