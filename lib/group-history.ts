// Pure folds behind the Group view: each Stable look at the group either continues the current
// generation or starts the next one (with what ended the previous: members joined, gone,
// partitions moved), and each look at the offsets adds a point to every input partition's lag
// series. Both are bounded, so they can run for the lab's whole life.

import type {
  GenerationEnd,
  GenerationMember,
  GoneHow,
  GroupGeneration,
  LagPoint,
  PartitionLagSeries,
} from './group-view.ts'

/** Generations kept (the oldest are dropped and counted). */
export const MAX_GENERATIONS = 40
/**
 * Points kept per partition; past it every other point is dropped, so the series
 * spans the lab's life at half the resolution.
 */
export const MAX_LAG_POINTS = 60

export interface GroupObservation {
  atMs: number
  generationId: number | null
  members: GenerationMember[]
}

export interface GenerationHistory {
  generations: GroupGeneration[]
  earlier: number
}

function sameMembers(a: readonly GenerationMember[], b: readonly GenerationMember[]): boolean {
  const key = (ms: readonly GenerationMember[]) =>
    JSON.stringify([...ms].map((m) => [m.memberId, [...m.partitions].sort((x, y) => x - y)]).sort())
  return key(a) === key(b)
}

function sameMemberIds(a: readonly GenerationMember[], b: readonly GenerationMember[]): boolean {
  const ids = (ms: readonly GenerationMember[]) =>
    ms
      .map((m) => m.memberId)
      .sort()
      .join('\n')
  return ids(a) === ids(b)
}

/** What changed from one generation's members to the next's. */
export function generationEnd(
  prev: readonly GenerationMember[],
  next: readonly GenerationMember[],
  atMs: number,
  goneHow: (m: GenerationMember) => GoneHow,
): GenerationEnd {
  const ids = new Set(next.map((m) => m.memberId))
  const before = new Set(prev.map((m) => m.memberId))
  const ownerIn = (ms: readonly GenerationMember[]) =>
    new Map(ms.flatMap((m) => m.partitions.map((p) => [p, m.memberId] as const)))
  const was = ownerIn(prev)
  const now = ownerIn(next)
  const moved = [...new Set([...was.keys(), ...now.keys()])]
    .sort((a, b) => a - b)
    .filter((p) => was.get(p) !== now.get(p))
    .map((p) => ({ partition: p, from: was.get(p) ?? null, to: now.get(p) ?? null }))
  return {
    atMs,
    joined: next.filter((m) => !before.has(m.memberId)).map((m) => ({ memberId: m.memberId, workerId: m.workerId })),
    gone: prev
      .filter((m) => !ids.has(m.memberId))
      .map((m) => ({ memberId: m.memberId, workerId: m.workerId, how: goneHow(m) })),
    moved,
  }
}

/**
 * One Stable look at the group. A new generation id, or (generation unknown) other members or
 * another assignment, starts a generation and ends the previous one; the same generation seen
 * again (with the same members: other members under its id is a stale id, ignored) only
 * refreshes what is known of it (a worker id or the generation id learnt later; a worker id
 * is never forgotten, so a killed member keeps its worker's name).
 */
export function foldGeneration(
  h: GenerationHistory,
  obs: GroupObservation,
  goneHow: (m: GenerationMember) => GoneHow,
  max = MAX_GENERATIONS,
): GenerationHistory {
  const last = h.generations[h.generations.length - 1]
  const members = obs.members
    .map((m) => ({ ...m, partitions: [...m.partitions].sort((a, b) => a - b) }))
    .sort((a, b) => (a.memberId < b.memberId ? -1 : 1))
  const continues =
    last !== undefined &&
    (obs.generationId !== null && last.generationId !== null
      ? obs.generationId === last.generationId
      : sameMembers(last.members, members))
  if (continues) {
    // A generation's members never change: other members under the same generation id is a stale id.
    if (last.generationId !== null && obs.generationId !== null && !sameMemberIds(last.members, members)) return h
    // What was learnt stays: a worker id once reported, a generation id once known.
    const known = new Map(last.members.map((m) => [m.memberId, m.workerId]))
    const merged = members.map((m) => ({ ...m, workerId: m.workerId ?? known.get(m.memberId) ?? null }))
    const generationId = last.generationId ?? obs.generationId
    if (generationId === last.generationId && JSON.stringify(last.members) === JSON.stringify(merged)) return h
    return { ...h, generations: [...h.generations.slice(0, -1), { ...last, generationId, members: merged }] }
  }
  // An older generation than the last seen is a late report, not a new generation.
  if (last?.generationId != null && obs.generationId !== null && obs.generationId < last.generationId) return h
  const ended = last
    ? [...h.generations.slice(0, -1), { ...last, endedBy: generationEnd(last.members, members, obs.atMs, goneHow) }]
    : []
  const all = [...ended, { generationId: obs.generationId, startedAtMs: obs.atMs, members, endedBy: null }]
  const drop = Math.max(0, all.length - max)
  return { generations: all.slice(drop), earlier: h.earlier + drop }
}

/**
 * Once a series is over `max` points, keeps about half of them evenly spread over its whole span
 * (the first and the latest always): the series covers the lab's life at a coarser resolution.
 */
export function thinPoints(points: readonly LagPoint[], max = MAX_LAG_POINTS): LagPoint[] {
  if (points.length <= max) return [...points]
  const first = points[0]!
  const latest = points[points.length - 1]!
  const gap = (latest.atMs - first.atMs) / Math.max(1, Math.floor(max / 2))
  const kept = [first]
  for (const p of points.slice(1, -1)) if (p.atMs - kept[kept.length - 1]!.atMs >= gap) kept.push(p)
  kept.push(latest)
  return kept
}

/** Lag = end − committed (kafka-consumer-groups.sh's LAG), never below 0; null with no committed offset. */
export function lagOf(end: number, committed: number | null): number | null {
  return committed === null ? null : Math.max(0, end - committed)
}

/** One look at the offsets: a point per input partition. */
export function foldLag(
  series: readonly PartitionLagSeries[],
  atMs: number,
  committed: readonly (number | null)[],
  ends: readonly number[],
  max = MAX_LAG_POINTS,
): PartitionLagSeries[] {
  return ends.map((end, partition) => {
    const c = committed[partition] ?? null
    const points = series.find((s) => s.partition === partition)?.points ?? []
    return { partition, points: thinPoints([...points, { atMs, committed: c, end, lag: lagOf(end, c) }], max) }
  })
}
