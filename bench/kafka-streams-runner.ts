// One bench:kafka run of the Kafka Streams yardstick (bench/kafka-streams): a fresh application id,
// its input written before the application starts (the same records eoscope gets: same load
// generator, seed, keys and partitions), then the Java process measured from outside exactly as
// eoscope is (bench/kafka-window.ts): its consumer group (group id = application.id) asked for its
// committed input offsets every 50 ms. It is settled once it reports RUNNING with all 6 tasks
// active; it stops on SIGTERM (a clean close, its last commit included), and its output and
// changelog go through eoscope's validator.

import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import type { Admin } from 'kafkajs'
import { changelogTopic } from '../lib/records.ts'
import type { ProcessingGuarantee } from '../lib/streams-config.ts'
import { LoadGenerator } from '../server/runtime/load-generator.ts'
import { createKafka } from '../server/log/kafka/kafka-client.ts'
import { KafkaConnection } from '../server/log/kafka/kafka-connection.ts'
import { SystemTime } from '../server/log/time.ts'
import { validateRun } from '../server/validator/validator.ts'
import { KEYS, PARTITIONS, type RunPlan, WORKERS } from './kafka-eoscope.ts'
import { checkedRun, measureWindow, type Progress, type RunResult, SAMPLE_MS } from './kafka-window.ts'
import { localBrokerCpu, processCpuSeconds } from './process-cpu.ts'

/**
 * Heap of the Kafka Streams process: 1 GB, what a Kafka Streams deployment of this size is given (its
 * store holds one aggregate per key, 100 keys, so the heap is for the clients' buffers and the JIT).
 */
export const JAVA_OPTS = ['-Xms1g', '-Xmx1g']
const MAIN_CLASS = 'dev.eoscope.yardstick.YardstickApp'
const STOP_TIMEOUT_MS = 30_000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** What the runner knows of the Java process: its state lines, its exit, its last words. */
export class StreamsProcess {
  state = 'CREATED'
  activeTasks = 0
  commits: number | null = null
  exit: string | null = null
  readonly stderr: string[] = []
  readonly exited: Promise<void>

  constructor(readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => this.onLine(line))
    createInterface({ input: child.stderr! }).on('line', (line) => {
      this.stderr.push(line)
      if (this.stderr.length > 20) this.stderr.shift()
    })
    this.exited = new Promise((resolve) =>
      child.on('exit', (code, signal) => {
        this.exit = signal ? `signal ${signal}` : `code ${code}`
        resolve()
      }),
    )
  }

  private onLine(line: string): void {
    const state = /^state (\w+) tasks=(\d+)/.exec(line)
    if (state) [this.state, this.activeTasks] = [state[1]!, Number(state[2])]
    const commits = /^commits (\d+)/.exec(line)
    if (commits) this.commits = Number(commits[1])
  }

  failure(): string | null {
    if (this.exit === null && this.state !== 'ERROR' && this.state !== 'PENDING_ERROR') return null
    const last = this.stderr.filter((l) => /ERROR|Exception|failed/.test(l)).at(-1) ?? this.stderr.at(-1) ?? ''
    const state = this.exit === null ? `in state ${this.state}` : `exited (${this.exit})`
    return `Kafka Streams ${state}${last ? `: ${last.slice(0, 300)}` : ''}`
  }

  /** SIGTERM (a clean close), SIGKILL if it has not exited in time. */
  async stop(): Promise<void> {
    if (this.exit !== null) return
    this.child.kill('SIGTERM')
    const timedOut = await Promise.race([this.exited.then(() => false), sleep(STOP_TIMEOUT_MS).then(() => true)])
    if (timedOut) {
      this.child.kill('SIGKILL')
      await this.exited
    }
  }
}

/** The group's committed input offsets, fetched every SAMPLE_MS while the run lasts. */
class CommittedWatch {
  readonly committed: number[] = Array.from({ length: PARTITIONS }, () => 0)
  private running = true
  readonly loop: Promise<void>

  constructor(
    private readonly admin: Admin,
    private readonly groupId: string,
    private readonly topic: string,
  ) {
    this.loop = this.run()
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const fetched = await this.admin.fetchOffsets({ groupId: this.groupId, topics: [this.topic] })
        for (const p of fetched[0]?.partitions ?? []) {
          const o = Number(p.offset)
          if (o >= 0 && p.partition < PARTITIONS && o > this.committed[p.partition]!) this.committed[p.partition] = o
        }
      } catch {
        // The next fetch answers; a run that never does fails at its bound.
      }
      await sleep(SAMPLE_MS)
    }
  }

  async stop(): Promise<void> {
    this.running = false
    await this.loop
  }
}

async function prefill(connection: KafkaConnection, topic: string, records: number, seed: number): Promise<void> {
  const producer = connection.producer({ clientId: `${topic}-load-generator`, idempotent: true })
  // The seed as eoscope's runtime derives its load generator's, so both engines get the same records.
  const generator = new LoadGenerator(
    producer,
    {
      topic,
      partitions: PARTITIONS,
      ratePerSec: Number.POSITIVE_INFINITY,
      maxRecords: records,
      keys: KEYS,
      seed: seed ^ 0x5eed,
    },
    new SystemTime(),
  )
  await generator.start()
  await producer.close()
}

/**
 * `jvmOptions`: besides JAVA_OPTS (a second instance of one application needs its
 * own -Djava.io.tmpdir: its state directory).
 */
export function startStreams(
  classPath: string,
  plan: Pick<RunPlan, 'brokers' | 'guarantee' | 'commitIntervalMs'>,
  appId: string,
  jvmOptions: string[] = [],
): StreamsProcess {
  const args = [
    ...JAVA_OPTS,
    ...jvmOptions,
    '-cp',
    classPath,
    MAIN_CLASS,
    '--bootstrap',
    plan.brokers.join(','),
    '--application-id',
    appId,
  ]
  args.push(
    '--guarantee',
    plan.guarantee,
    '--commit-interval-ms',
    String(plan.commitIntervalMs),
    '--threads',
    String(WORKERS),
  )
  return new StreamsProcess(spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'] }))
}

const SHORT: Partial<Record<ProcessingGuarantee, string>> = { at_least_once: 'alos', exactly_once_v2: 'eosv2' }

export async function runKafkaStreams(classPath: string, plan: RunPlan): Promise<RunResult> {
  const { brokers, guarantee, commitIntervalMs, records, seed } = plan
  if (!SHORT[guarantee])
    throw new Error(`the Kafka Streams yardstick runs at_least_once and exactly_once_v2, not ${guarantee}`)
  const appId = `kstreams-bench-${SHORT[guarantee]}-${commitIntervalMs}-${Date.now().toString(36)}`
  const topics = { input: `${appId}-input`, output: `${appId}-output`, changelog: changelogTopic(appId) }
  const connection = new KafkaConnection({ brokers, clientId: appId })
  const admin = createKafka({ brokers, clientId: appId }, `${appId}-watch`).admin()
  let streams: StreamsProcess | null = null
  let watch: CommittedWatch | null = null
  const brokerCpuSeconds = localBrokerCpu(brokers)
  try {
    await connection.admin().createTopics([
      { topic: topics.input, partitions: PARTITIONS },
      { topic: topics.output, partitions: PARTITIONS },
    ])
    await prefill(connection, topics.input, records, seed)
    await admin.connect()
    const ends = (await admin.fetchTopicOffsets(topics.input)).map((e) => ({
      partition: e.partition,
      end: Number(e.high),
    }))
    const s = startStreams(classPath, plan, appId)
    streams = s
    const w = new CommittedWatch(admin, appId, topics.input)
    watch = w
    const progress: Progress = {
      committedTotal: () => w.committed.reduce((a, b) => a + b, 0),
      caughtUp: () => ends.every((e) => w.committed[e.partition]! >= e.end),
      groupSettled: () => s.state === 'RUNNING' && s.activeTasks === PARTITIONS,
      failure: () => s.failure(),
      engineCpuSeconds: () => (s.child.pid === undefined ? null : processCpuSeconds([s.child.pid])),
      brokerCpuSeconds,
    }
    const window = await measureWindow(appId, records, progress, plan.boundMs)
    await watch.stop()
    await streams.stop()
    const report = await validateRun(connection.inspector(), {
      groupId: appId,
      inputTopic: topics.input,
      outputTopic: topics.output,
      changelogTopic: topics.changelog,
    })
    const validated = checkedRun(appId, guarantee, report)
    return { ...window, transactions: guarantee === 'at_least_once' ? 0 : streams.commits, validated }
  } finally {
    await watch?.stop()
    await streams?.stop()
    await admin.disconnect().catch(() => {})
    await connection
      .admin()
      .deleteTopics([topics.input, topics.output, topics.changelog])
      .catch(() => {})
    await connection.close()
  }
}
