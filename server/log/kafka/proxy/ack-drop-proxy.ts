// A Kafka-protocol-aware TCP proxy that loses produce acks on a real broker. Clients connect to
// it instead of the cluster; it forwards every frame, rewriting the broker addresses in Metadata
// and FindCoordinator responses to its own listeners (one per broker), so the clients never leave
// it. Told to drop N acks, it lets the next N Produce requests through (the broker appends the
// records), and when the broker's response comes back it closes the client's connection instead
// of delivering it: the write happened, the ack is lost. The client retries on a new connection;
// with enable.idempotence the broker recognises the batch by its producer id and sequence number
// and does not append it again, without it the records are written twice.

import { connect, createServer, type Server, type Socket } from 'node:net'
import {
  API_FIND_COORDINATOR,
  API_METADATA,
  API_PRODUCE,
  type BrokerAddress,
  FrameSplitter,
  parseProduceRequest,
  parseProduceResponse,
  type ProducedBatch,
  type ProduceRequest,
  requestHeader,
  responseCorrelationId,
  rewriteFindCoordinatorResponse,
  rewriteMetadataResponse,
} from './kafka-frames.ts'

/** A produce acknowledgement the proxy swallowed: the broker appended these batches. */
export interface DroppedAck {
  atMs: number
  /** The broker that appended them, host:port. */
  broker: string
  transactionalId: string | null
  /** Each batch, with the offset the broker gave its first record. */
  batches: (ProducedBatch & { baseOffset: number })[]
}

export interface AckDropProxyOptions {
  /** The cluster's bootstrap brokers, host:port. */
  brokers: string[]
  /** The address the proxy listens on and advertises (default 127.0.0.1). */
  listenHost?: string
  /** Which topics' produce requests may lose their ack (default: any). */
  topics?: (topic: string) => boolean
  now?: () => number
}

interface Pending {
  apiKey: number
  apiVersion: number
  drop: ProduceRequest | null
}

function parseAddress(s: string): BrokerAddress {
  const i = s.lastIndexOf(':')
  const port = Number(s.slice(i + 1))
  if (i <= 0 || !Number.isInteger(port) || port <= 0 || port > 65_535)
    throw new Error(`not a broker address (host:port): ${JSON.stringify(s)}`)
  return { host: s.slice(0, i), port }
}

const key = (a: BrokerAddress) => `${a.host}:${a.port}`

export class AckDropProxy {
  private readonly listeners = new Map<string, Promise<{ server: Server; address: BrokerAddress }>>()
  private readonly sockets = new Set<Socket>()
  private readonly droppedListeners = new Set<(d: DroppedAck) => void>()
  private readonly listenHost: string
  private readonly now: () => number
  private budget = 0
  private bootstrapAddresses: BrokerAddress[] = []
  readonly stats = { produceRequests: 0, droppedAcks: 0, connections: 0 }

  private constructor(private readonly options: AckDropProxyOptions) {
    this.listenHost = options.listenHost ?? '127.0.0.1'
    this.now = options.now ?? Date.now
  }

  /** Starts one listener per bootstrap broker; more open as Metadata names other brokers. */
  static async start(options: AckDropProxyOptions): Promise<AckDropProxy> {
    if (options.brokers.length === 0) throw new Error('the ack-drop proxy needs at least one broker address')
    const proxy = new AckDropProxy(options)
    const upstream = options.brokers.map(parseAddress)
    proxy.bootstrapAddresses = await Promise.all(upstream.map((a) => proxy.listenerFor(a)))
    return proxy
  }

  /** Where clients connect instead of the cluster (host:port, one per bootstrap broker). */
  get bootstrap(): string[] {
    return this.bootstrapAddresses.map(key)
  }

  /** The next `count` produce requests (acks != 0) have their ack lost after the broker appended them. */
  dropNextAcks(count: number): void {
    if (!Number.isInteger(count) || count < 0)
      throw new RangeError(`dropNextAcks: count must be a non-negative integer, got ${count}`)
    this.budget += count
  }

  /** Acks armed and not yet dropped are forgotten. */
  disarm(): void {
    this.budget = 0
  }

  /** Acks still to be dropped. */
  get pendingDrops(): number {
    return this.budget
  }

  onDropped(listener: (d: DroppedAck) => void): () => void {
    this.droppedListeners.add(listener)
    return () => this.droppedListeners.delete(listener)
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy()
    const servers = await Promise.all([...this.listeners.values()].map((l) => l.catch(() => null)))
    await Promise.all(
      servers.map((l) => (l === null ? undefined : new Promise<void>((r) => l.server.close(() => r())))),
    )
    this.listeners.clear()
  }

  private listenerFor(upstream: BrokerAddress): Promise<BrokerAddress> {
    let l = this.listeners.get(key(upstream))
    if (!l) {
      l = new Promise((resolve, reject) => {
        const server = createServer((client) => this.onClient(client, upstream))
        server.once('error', reject)
        server.listen(0, this.listenHost, () => {
          const a = server.address()
          if (a === null || typeof a === 'string') return reject(new Error('the ack-drop proxy could not listen'))
          resolve({ server, address: { host: this.listenHost, port: a.port } })
        })
      })
      this.listeners.set(key(upstream), l)
    }
    return l.then((x) => x.address)
  }

  private track(s: Socket): void {
    this.sockets.add(s)
    s.on('close', () => this.sockets.delete(s))
  }

  private onClient(client: Socket, upstream: BrokerAddress): void {
    this.stats.connections++
    const broker = connect(upstream.port, upstream.host)
    this.track(client)
    this.track(broker)
    const pending = new Map<number, Pending>()
    let ended = false
    const end = () => {
      if (!ended) {
        ended = true
        // A request chosen to lose its ack whose response never reached this proxy (the connection
        // went first, cut for another lost ack): this proxy did not drop it, so the drop is still owed.
        for (const p of pending.values()) if (p.drop !== null) this.budget++
        pending.clear()
      }
      client.destroy()
      broker.destroy()
    }
    client.on('error', end).on('close', end)
    broker.on('error', end).on('close', end)
    const requests = new FrameSplitter()
    const responses = new FrameSplitter()
    let chain = Promise.resolve()
    client.on('data', (chunk: Buffer) => {
      try {
        for (const frame of requests.push(chunk)) {
          this.onRequest(frame, pending)
          if (!broker.write(frame)) client.pause()
        }
      } catch {
        end()
      }
    })
    broker.on('drain', () => client.resume())
    client.on('drain', () => broker.resume())
    broker.on('data', (chunk: Buffer) => {
      let frames: Buffer[]
      try {
        frames = responses.push(chunk)
      } catch {
        return end()
      }
      chain = chain
        .then(async () => {
          for (const frame of frames) {
            if (client.destroyed) return
            const out = await this.onResponse(frame, pending, key(upstream))
            if (out === null) return end()
            if (!client.write(out)) broker.pause()
          }
        })
        .catch(end)
    })
  }

  private onRequest(frame: Buffer, pending: Map<number, Pending>): void {
    const h = requestHeader(frame)
    if (h === null) return
    let drop: ProduceRequest | null = null
    if (h.apiKey === API_PRODUCE) {
      this.stats.produceRequests++
      if (this.budget > 0) {
        const p = parseProduceRequest(frame, h)
        const topics = this.options.topics
        if (p.acks !== 0 && p.batches.length > 0 && (topics === undefined || p.batches.some((b) => topics(b.topic)))) {
          this.budget--
          drop = p
        }
      }
    }
    if (h.apiKey === API_PRODUCE || h.apiKey === API_METADATA || h.apiKey === API_FIND_COORDINATOR)
      pending.set(h.correlationId, { apiKey: h.apiKey, apiVersion: h.apiVersion, drop })
  }

  /** The frame to deliver, or null: the ack is lost, the connection goes. */
  private async onResponse(frame: Buffer, pending: Map<number, Pending>, broker: string): Promise<Buffer | null> {
    const id = responseCorrelationId(frame)
    const p = id === null ? undefined : pending.get(id)
    if (p === undefined) return frame
    pending.delete(id!)
    const map = (a: BrokerAddress) => this.listenerFor(a)
    if (p.apiKey === API_METADATA) return rewriteMetadataResponse(frame, p.apiVersion, map)
    if (p.apiKey === API_FIND_COORDINATOR) return rewriteFindCoordinatorResponse(frame, p.apiVersion, map)
    if (p.drop === null) return frame
    const results = parseProduceResponse(frame, p.apiVersion)
    if (results.some((r) => r.errorCode !== 0)) {
      // Not appended (or not all of it): losing this ack would not be the fault asked for.
      this.budget++
      return frame
    }
    const offsetOf = new Map(results.map((r) => [`${r.topic}/${r.partition}`, r.baseOffset]))
    const dropped: DroppedAck = {
      atMs: this.now(),
      broker,
      transactionalId: p.drop.transactionalId,
      batches: p.drop.batches.map((b) => ({ ...b, baseOffset: offsetOf.get(`${b.topic}/${b.partition}`) ?? -1 })),
    }
    this.stats.droppedAcks++
    for (const l of this.droppedListeners) l(dropped)
    return null
  }
}
