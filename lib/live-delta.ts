// Snapshot deltas for the socket layer. Isomorphic and pure: the server diffs each coalesced
// LabSnapshot against the previous broadcast one; the browser applies the patch to its copy.
// Unchanged subtrees keep their identity on the browser side, so memoised panels skip rendering.
//
// Patch encoding (compact JSON):
//   ['=', value]                          replace the value
//   ['o', { key: Patch }, deleted?]       patch an object's keys; `deleted` lists removed keys
//   ['a', drop, [[key, Patch]...], order?] keyed array: drop `drop` items from the front, then patch
//                                          items by key (new keys are appended, in this order);
//                                          `order` (the full key list) only when that is not enough.
//
// Volatile events may be dropped, so every delta names the seq it was computed against; a browser
// holding another seq asks for a full snapshot (the `resync` event) instead of applying it.

import type { CommandResult, LabSnapshot } from './lab-protocol.ts'

export type Patch =
  | ['=', unknown]
  | ['o', Record<string, Patch>, string[]?]
  | ['a', number, [ArrayKey, Patch][], ArrayKey[]?]
type ArrayKey = string | number

export interface SnapshotDelta {
  /** seq of the snapshot this delta was computed against. */
  base: number
  seq: number
  patch: Patch
}

/** The lab protocol's socket events: full snapshots, and commands with their acknowledgement. */
export interface ServerToClientEvents {
  snapshot: (s: LabSnapshot) => void
}
export interface ClientToServerEvents {
  command: (name: string, payload: unknown, ack: (r: CommandResult) => void) => void
}

/** Socket events of the live dashboard: the lab protocol's events plus deltas and resync. */
export interface LiveServerToClientEvents extends ServerToClientEvents {
  delta: (d: SnapshotDelta) => void
}
export interface LiveClientToServerEvents extends ClientToServerEvents {
  resync: (ack: (s: LabSnapshot | null) => void) => void
  /** The page changed (lib/live-views.ts): the answer names the socket's view now, and its snapshot if sent at once. */
  view: (view: string, ack: (r: { view: string; snapshot: LabSnapshot | null }) => void) => void
}

type Obj = Record<string, unknown>

/**
 * A deep copy for the wire with numbers trimmed to what the dashboard can show: instants and other
 * large values to whole milliseconds, the rest to two decimals. A copy also protects the deltas
 * from a lab that updates the objects of an earlier snapshot in place.
 */
export function wireCopy<T>(value: T): T {
  if (typeof value === 'number') {
    if (Number.isInteger(value) || !Number.isFinite(value)) return value
    return (Math.abs(value) >= 100_000 ? Math.round(value) : Math.round(value * 100) / 100) as T
  }
  if (Array.isArray(value)) return value.map(wireCopy) as T
  if (value !== null && typeof value === 'object') {
    const out: Obj = {}
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = wireCopy(v)
    return out as T
  }
  return value
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The key of an array item, or undefined when the item cannot be keyed. */
function itemKey(item: unknown): ArrayKey | undefined {
  if (!isObj(item)) return undefined
  if (typeof item.id === 'string' || typeof item.id === 'number') return item.id
  if (typeof item.taskId === 'string') return item.taskId
  if (typeof item.t === 'number')
    return typeof item.kind === 'string' ? `${item.t}|${item.kind}|${String(item.label ?? '')}` : item.t
  if (typeof item.step === 'number') return item.step
  // Deep views: partition log cells by offset, producer timelines by transactional.id, their
  // sequences by partition, epochs and fencings by instant (duplicates fall back to a full copy).
  if (typeof item.offset === 'number') return item.offset
  if (typeof item.transactionalId === 'string') return item.transactionalId
  if (typeof item.partition === 'string') return item.partition
  if (typeof item.atMs === 'number') return item.atMs
  return undefined
}

function keysOf(arr: unknown[]): ArrayKey[] | undefined {
  const keys: ArrayKey[] = []
  const seen = new Set<ArrayKey>()
  for (const item of arr) {
    const k = itemKey(item)
    if (k === undefined || seen.has(k)) return undefined
    seen.add(k)
    keys.push(k)
  }
  return keys
}

/** The patch turning `prev` into `next`, or undefined when they are deeply equal. */
export function diff(prev: unknown, next: unknown): Patch | undefined {
  if (prev === next) return undefined
  if (Array.isArray(prev) && Array.isArray(next)) return diffArray(prev, next)
  if (isObj(prev) && isObj(next)) {
    const changed: Record<string, Patch> = {}
    let any = false
    for (const k of Object.keys(next)) {
      const p = Object.hasOwn(prev, k) ? diff(prev[k], next[k]) : (['=', next[k]] as Patch)
      if (p) {
        changed[k] = p
        any = true
      }
    }
    const deleted = Object.keys(prev).filter((k) => !Object.hasOwn(next, k))
    if (!any && deleted.length === 0) return undefined
    return deleted.length ? ['o', changed, deleted] : ['o', changed]
  }
  if (typeof prev === 'number' && typeof next === 'number' && Number.isNaN(prev) && Number.isNaN(next)) return undefined
  return ['=', next]
}

function diffArray(prev: unknown[], next: unknown[]): Patch | undefined {
  const prevKeys = keysOf(prev)
  const nextKeys = keysOf(next)
  if (!prevKeys || !nextKeys || (prev.length === 0 && next.length === 0)) {
    if (prev.length === next.length && prev.every((v, i) => diff(v, next[i]) === undefined)) return undefined
    return ['=', next]
  }
  // Items dropped from the front (a sliding window), then patches by key.
  const nextSet = new Set(nextKeys)
  let drop = 0
  while (drop < prevKeys.length && !nextSet.has(prevKeys[drop]!)) drop++
  const prevIndex = new Map<ArrayKey, number>()
  prevKeys.forEach((k, i) => {
    prevIndex.set(k, i)
  })
  const ups: [ArrayKey, Patch][] = []
  for (let i = 0; i < next.length; i++) {
    const k = nextKeys[i]!
    const pi = prevIndex.get(k)
    if (pi === undefined || pi < drop) ups.push([k, ['=', next[i]]])
    else {
      const p = diff(prev[pi], next[i])
      if (p) ups.push([k, p])
    }
  }
  // The order the browser would reconstruct; send the full order only when it differs.
  const rebuilt = prevKeys.slice(drop)
  const present = new Set(rebuilt)
  for (const [k] of ups) if (!present.has(k)) rebuilt.push(k)
  const sameOrder = rebuilt.length === nextKeys.length && rebuilt.every((k, i) => k === nextKeys[i])
  if (sameOrder && drop === 0 && ups.length === 0) return undefined
  return sameOrder ? ['a', drop, ups] : ['a', drop, ups, nextKeys]
}

/** Applies a patch; never changes its input. Unchanged subtrees are shared with `prev`. */
export function applyPatch<T>(prev: T, patch: Patch): T {
  switch (patch[0]) {
    case '=':
      return patch[1] as T
    case 'o': {
      const base = (isObj(prev) ? prev : {}) as Obj
      const out: Obj = { ...base }
      for (const [k, p] of Object.entries(patch[1])) out[k] = applyPatch(base[k], p)
      for (const k of patch[2] ?? []) delete out[k]
      return out as T
    }
    case 'a': {
      const [, drop, ups, order] = patch
      const items = (Array.isArray(prev) ? prev : []).slice(drop)
      const byKey = new Map<ArrayKey, unknown>()
      const keys: ArrayKey[] = []
      for (const item of items) {
        const k = itemKey(item)
        if (k === undefined) continue
        byKey.set(k, item)
        keys.push(k)
      }
      for (const [k, p] of ups) {
        if (!byKey.has(k)) keys.push(k)
        byKey.set(k, applyPatch(byKey.get(k), p))
      }
      return (order ?? keys).map((k) => byKey.get(k)) as T
    }
  }
}
