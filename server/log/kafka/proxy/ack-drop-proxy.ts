// A Kafka-protocol-aware TCP proxy that loses produce acks on a real broker. Clients connect to
// it instead of the cluster; it forwards every frame, rewriting the broker addresses in Metadata
// and FindCoordinator responses to its own listeners (one per broker), so the clients never leave
// it. Told to drop N acks, it lets the next N Produce requests through (the broker appends the
// records), and when the broker's response comes back it closes the client's connection instead
// of delivering it: the write happened, the ack is lost. The client retries on a new connection;
// with enable.idempotence the broker recognises the batch by its producer id and sequence number
// and does not append it again, without it the records are written twice.
// Given a network delay, it also holds every frame for a one-way latency (and a seeded jitter) in
// each direction, in order, so that clients run as if the brokers were a network away.

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
import { SeededRandom } from '../../time.ts'
import { checkOneWayDelay, DelayLine, NO_DELAY, type OneWayDelay } from './delay-line.ts'

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
  /** The network between clients and brokers: a one-way delay each way, its jitter from `seed` (default none). */
  network?: NetworkDelay
}

/** What the proxy adds to each direction of every connection it carries. */
export interface NetworkDelay {
  /** Client to broker. */
  request: OneWayDelay
  /** Broker to client. */
  response: OneWayDelay
  seed: number
}

/** Whether a network delay delays anything. */
export function hasNetworkDelay(n: NetworkDelay): boolean {
  return [n.request, n.response].some((d) => d.latencyMs > 0 || d.jitterMs > 0)
}

/** The delay in words, from the clients' side: "workers 1 ms from the brokers (+ up to 0.5 ms)" (the request's way). */
export function networkInWords(n: NetworkDelay): string {
  const d = n.request
  return `workers ${d.latencyMs} ms from the brokers${d.jitterMs > 0 ? ` (+ up to ${d.jitterMs} ms)` : ''}`
}

export const NO_NETWORK_DELAY: NetworkDelay = Object.freeze({ request: NO_DELAY, response: NO_DELAY, seed: 1 })

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

  private readonly network: NetworkDelay

  private constructor(private readonly options: AckDropProxyOptions) {
    this.listenHost = options.listenHost ?? '127.0.0.1'
    this.now = options.now ?? Date.now
    const n = options.network ?? NO_NETWORK_DELAY
    this.network = {
      request: checkOneWayDelay(n.request, 'the network delay to the brokers'),
      response: checkOneWayDelay(n.response, 'the network delay from the brokers'),
      seed: n.seed,
    }
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
    const random = new SeededRandom(this.network.seed + this.stats.connections)
    let ended = false
    // Each direction a network away: a frame reaches the other side a one-way delay after it was sent.
    const toBroker = new DelayLine<Buffer>(
      this.network.request,
      () => random.next(),
      (frame) => {
        if (!broker.write(frame)) client.pause()
      },
    )
    // null: the ack is lost; the client sees its connection go when the response would have reached it.
    const toClient = new DelayLine<Buffer | null>(
      this.network.response,
      () => random.next(),
      (frame) => {
        if (frame === null) end()
        else if (!client.write(frame)) broker.pause()
      },
    )
    const end = () => {
      if (!ended) {
        ended = true
        // A request chosen to lose its ack whose response never reached this proxy (the connection
        // went first, cut for another lost ack): this proxy did not drop it, so the drop is still owed.
        for (const p of pending.values()) if (p.drop !== null) this.budget++
        pending.clear()
      }
      toBroker.close()
      toClient.close()
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
          toBroker.send(frame)
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
            toClient.send(out)
            if (out === null) return
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
