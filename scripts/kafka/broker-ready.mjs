// Waits until a Kafka broker answers a Metadata request through kafkajs: exit 0 when it does,
// 1 when it did not within the deadline. Usage: node broker-ready.mjs HOST:PORT [timeoutMs]
import kafkajs from 'kafkajs'

const { Kafka, logLevel } = kafkajs
const broker = process.argv[2] ?? '127.0.0.1:19092'
const timeoutMs = Number(process.argv[3] ?? 30_000)
const deadline = Date.now() + timeoutMs

const kafka = new Kafka({
  clientId: 'eoscope-broker-ready',
  brokers: [broker],
  logLevel: logLevel.NOTHING,
  retry: { retries: 0 },
  connectionTimeout: 1_000,
})
let lastError = null
while (Date.now() < deadline) {
  const admin = kafka.admin()
  try {
    await admin.connect()
    const cluster = await admin.describeCluster()
    await admin.listTopics()
    await admin.disconnect()
    console.log(
      `broker ${broker} ready: cluster ${cluster.clusterId}, controller ${cluster.controller}, ` +
        `${cluster.brokers.length} broker(s)`,
    )
    process.exit(0)
  } catch (e) {
    lastError = e
    await admin.disconnect().catch(() => {})
    await new Promise((r) => setTimeout(r, 200))
  }
}
console.error(`broker ${broker} not ready after ${timeoutMs} ms: ${lastError?.message ?? 'no answer'}`)
process.exit(1)
