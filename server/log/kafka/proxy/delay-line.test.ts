// The proxy's network delay: a DelayLine on a fake clock (latency, seeded jitter, order kept, a
// closed line delivering nothing), and the proxy itself in front of an echo server standing in for
// a broker: a frame's round trip takes both one-way delays at least, and frames keep their order.

import { once } from 'node:events'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { SeededRandom } from '../../time.ts'
import { AckDropProxy } from './ack-drop-proxy.ts'
import { checkOneWayDelay, type DelayClock, DelayLine } from './delay-line.ts'

class FakeClock implements DelayClock {
  t = 0
  private timers: { at: number; run: () => void; live: boolean }[] = []
  now(): number {
    return this.t
  }
  schedule(afterMs: number, run: () => void) {
    const timer = { at: this.t + afterMs, run, live: true }
    this.timers.push(timer)
    return { cancel: () => (timer.live = false) }
  }
  advanceTo(t: number): void {
    for (;;) {
      const due = this.timers.filter((x) => x.live && x.at <= t).sort((a, b) => a.at - b.at)[0]
      if (due === undefined) break
      this.t = due.at
      due.live = false
      due.run()
    }
    this.t = t
  }
}

describe('a delay line', () => {
  it('delivers each item its latency after it was sent', () => {
    const clock = new FakeClock()
    const got: [string, number][] = []
    const line = new DelayLine<string>({ latencyMs: 5, jitterMs: 0 }, Math.random, (x) => got.push([x, clock.t]), clock)
    line.send('a')
    clock.advanceTo(1)
    line.send('b')
    clock.advanceTo(4.9)
    expect(got).toEqual([])
    expect(line.inFlight).toBe(2)
    clock.advanceTo(20)
    expect(got).toEqual([
      ['a', 5],
      ['b', 6],
    ])
  })

  it('draws jitter from its seed, and never delivers an item before one sent earlier', () => {
    const run = () => {
      const clock = new FakeClock()
      const random = new SeededRandom(7)
      const got: { i: number; sentAt: number; at: number }[] = []
      const sentAt: number[] = []
      const line = new DelayLine<number>(
        { latencyMs: 2, jitterMs: 10 },
        () => random.next(),
        (i) => got.push({ i, sentAt: sentAt[i]!, at: clock.t }),
        clock,
      )
      for (let i = 0; i < 50; i++) {
        sentAt.push(clock.t)
        line.send(i)
        clock.advanceTo(clock.t + 0.5)
      }
      clock.advanceTo(1_000)
      return got
    }
    const got = run()
    expect(got.map((x) => x.i)).toEqual([...Array(50).keys()])
    for (const x of got) expect(x.at - x.sentAt).toBeGreaterThanOrEqual(2)
    // Some items waited past their own latency and jitter for an earlier, later-drawn one: held, not reordered.
    expect(new Set(got.map((x) => x.at - x.sentAt)).size).toBeGreaterThan(10)
    expect(run()).toEqual(got)
  })

  it('delivers at once without a delay, and nothing once closed', () => {
    const clock = new FakeClock()
    const got: string[] = []
    const now = new DelayLine<string>({ latencyMs: 0, jitterMs: 0 }, Math.random, (x) => got.push(x), clock)
    now.send('at once')
    expect(got).toEqual(['at once'])
    const later = new DelayLine<string>({ latencyMs: 3, jitterMs: 0 }, Math.random, (x) => got.push(x), clock)
    later.send('lost with the connection')
    later.close()
    clock.advanceTo(10)
    later.send('after the close')
    clock.advanceTo(20)
    expect(got).toEqual(['at once'])
  })

  it('refuses a delay that is not from 0 to 10000 ms, naming it', () => {
    expect(() => checkOneWayDelay({ latencyMs: -1, jitterMs: 0 }, 'to the brokers')).toThrow(
      'to the brokers: the one-way latency must be from 0 to 10000 ms; got -1',
    )
    expect(() => checkOneWayDelay({ latencyMs: 1, jitterMs: Number.NaN }, 'x')).toThrow(/jitter .* got NaN/)
    expect(checkOneWayDelay({ latencyMs: 0.5, jitterMs: 0 }, 'x')).toEqual({ latencyMs: 0.5, jitterMs: 0 })
  })
})

/** A frame as Kafka sizes it: a 4-byte length, then an ApiVersions-like header the proxy passes through. */
function frame(i: number): Buffer {
  const body = Buffer.alloc(14)
  body.writeInt16BE(18, 0)
  body.writeInt16BE(0, 2)
  body.writeInt32BE(i, 4)
  body.writeInt16BE(-1, 8)
  const sized = Buffer.alloc(4 + body.length)
  sized.writeInt32BE(body.length, 0)
  body.copy(sized, 4)
  return sized
}

describe('the proxy a network away from its broker', () => {
  let echo: Server | null = null
  let proxy: AckDropProxy | null = null
  const sockets: Socket[] = []
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy()
    await proxy?.close()
    await new Promise((r) => (echo ? echo.close(r) : r(null)))
  })

  async function throughProxy(network: ConstructorParameters<typeof DelayLine>[0] | null): Promise<Socket> {
    echo = createServer((s) => {
      sockets.push(s)
      s.pipe(s)
    })
    echo.listen(0, '127.0.0.1')
    await once(echo, 'listening')
    const port = (echo.address() as { port: number }).port
    proxy = await AckDropProxy.start({
      brokers: [`127.0.0.1:${port}`],
      ...(network ? { network: { request: network, response: network, seed: 3 } } : {}),
    })
    const [host, p] = proxy.bootstrap[0]!.split(':')
    const client = connect(Number(p), host)
    sockets.push(client)
    await once(client, 'connect')
    return client
  }

  it('holds a round trip for both one-way delays at least, and keeps 30 frames in order under jitter', async () => {
    const client = await throughProxy({ latencyMs: 20, jitterMs: 15 })
    const sent = Array.from({ length: 30 }, (_, i) => frame(i))
    let received = Buffer.alloc(0)
    const all = Buffer.concat(sent)
    const done = new Promise<number>((resolve) =>
      client.on('data', (d: Buffer) => {
        received = Buffer.concat([received, d])
        if (received.length >= all.length) resolve(performance.now())
      }),
    )
    const first = new Promise<number>((resolve) => client.once('data', () => resolve(performance.now())))
    const t0 = performance.now()
    for (const f of sent) client.write(f)
    expect((await first) - t0).toBeGreaterThanOrEqual(40)
    await done
    expect(received.equals(all)).toBe(true)
  })

  it('passes frames straight through without a network delay', async () => {
    const client = await throughProxy(null)
    const data = once(client, 'data')
    client.write(frame(1))
    const [got] = (await data) as [Buffer]
    expect(got.equals(frame(1))).toBe(true)
  })

  it('refuses a negative delay before it listens', async () => {
    await expect(
      AckDropProxy.start({
        brokers: ['127.0.0.1:1'],
        network: { request: { latencyMs: -5, jitterMs: 0 }, response: { latencyMs: 0, jitterMs: 0 }, seed: 1 },
      }),
    ).rejects.toThrow('the network delay to the brokers: the one-way latency must be from 0 to 10000 ms; got -5')
  })
})
