// The message browser's query in the page URL: written and read back alike, other parameters kept,
// bad values read as no query; links from evidence and the duplicate ledger name exact offsets.

import { describe, expect, it } from 'vitest'
import {
  apiParams,
  copiesQuery,
  linkQuery,
  messagesHref,
  readBrowserQuery,
  writeBrowserQuery,
} from './message-browser-query.ts'

describe('the message browser query in the URL', () => {
  it('reads back what it wrote, keeping every other parameter', () => {
    const q = {
      topic: 'output' as const,
      partition: 2,
      from: 10,
      to: 12,
      key: 'k 7',
      sinceMs: 5,
      untilMs: 9,
      limit: 50,
    }
    const search = writeBrowserQuery('?id=3&msg.from=1', q)
    expect(search).toBe(
      '?id=3&msg.topic=output&msg.partition=2&msg.from=10&msg.to=12' +
        '&msg.key=k+7&msg.sinceMs=5&msg.untilMs=9&msg.limit=50',
    )
    expect(readBrowserQuery(search)).toEqual(q)
    expect(writeBrowserQuery(search, null)).toBe('?id=3')
  })

  it('reads no query from a URL without one, or with a bad one', () => {
    expect(readBrowserQuery('?id=3')).toBeNull()
    expect(readBrowserQuery('?msg.topic=dlq')).toBeNull()
    expect(readBrowserQuery('?msg.topic=output&msg.from=9&msg.to=3')).toBeNull()
    expect(readBrowserQuery('?msg.topic=input')).toEqual({ topic: 'input', partition: 0 })
  })

  it("links a partition link, and a duplicate's two copies, at their exact offsets", () => {
    expect(linkQuery({ topic: 'changelog', partition: 1, fromOffset: 4, toOffset: 9 })).toEqual({
      topic: 'changelog',
      partition: 1,
      from: 4,
      to: 9,
    })
    expect(linkQuery({ topic: 'input', partition: 0 })).toEqual({ topic: 'input', partition: 0 })
    expect(copiesQuery('k1', { partition: 3, first: 40, copy: 57, source: { partition: 3, offset: 40 } })).toEqual({
      topic: 'output',
      partition: 3,
      from: 40,
      to: 58,
      key: 'k1',
      source: '3@40',
    })
    expect(
      readBrowserQuery('?msg.topic=output&msg.partition=3&msg.from=40&msg.to=58&msg.key=k1&msg.source=3@40'),
    ).toEqual({ topic: 'output', partition: 3, from: 40, to: 58, key: 'k1', source: '3@40' })
    expect(messagesHref({ topic: 'output', partition: 3, from: 40, to: 58 })).toBe(
      '/partitions?msg.topic=output&msg.partition=3&msg.from=40&msg.to=58#message-browser',
    )
    expect(apiParams({ topic: 'output', partition: 3, key: 'a' }).toString()).toBe('topic=output&partition=3&key=a')
  })

  it("carries an evidence link's lab in the URL and to the API, and reads a bad lab id as no query", () => {
    const q = linkQuery({ topic: 'input', partition: 0, fromOffset: 295, toOffset: 579, lab: 'mj4b2c1k-3' })
    expect(q).toEqual({ topic: 'input', partition: 0, from: 295, to: 579, lab: 'mj4b2c1k-3' })
    const href = messagesHref(q)
    expect(href).toBe(
      '/partitions?msg.topic=input&msg.partition=0&msg.from=295&msg.to=579&msg.lab=mj4b2c1k-3#message-browser',
    )
    expect(readBrowserQuery(href.slice('/partitions'.length, href.indexOf('#')))).toEqual(q)
    expect(apiParams(q).get('lab')).toBe('mj4b2c1k-3')
    expect(readBrowserQuery('?msg.topic=input&msg.lab=Not%20a%20lab')).toBeNull()
  })
})
