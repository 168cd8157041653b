import { memo, useMemo } from 'react'
import type { GroupGeneration, GroupView as GroupViewData } from '../lib/group-view.ts'
import { fmtInt, fmtSince } from './format.ts'
import { fmtEnd, fmtPartitions, lagChart, lagRows, latestLag, workerIndex } from './group-rows.ts'
import { Panel } from './panel.tsx'
import { TimeSeriesChart } from './time-series-chart.tsx'

export interface GroupViewProps {
  /** undefined: not read yet (or this server does not send it). */
  group: GroupViewData | undefined
  startedAtMs: number
}

/** Generation rows shown, newest first. */
const SHOWN_GENERATIONS = 8
const NO_MARKERS: never[] = []

function Members({ group }: { group: GroupViewData }) {
  return (
    <table className="history group-members" data-testid="group-members">
      <thead>
        <tr>
          <th>member.id</th>
          <th>client.id</th>
          <th>host</th>
          <th>worker</th>
          <th>assignment</th>
        </tr>
      </thead>
      <tbody>
        {group.members.map((m) => (
          <tr
            key={m.memberId}
            data-testid="group-member"
            data-member={m.memberId}
            data-worker={m.workerId ?? ''}
            data-partitions={m.partitions.join(',')}
          >
            <td className="mono name-cell" title={m.memberId}>
              {m.memberId}
            </td>
            <td className="mono name-cell" title={m.clientId}>
              {m.clientId}
            </td>
            <td className="mono">{m.host ?? 'in process'}</td>
            <td className="mono">{m.workerId ?? '—'}</td>
            <td className="mono">{fmtPartitions(m.partitions)}</td>
          </tr>
        ))}
        {group.members.length === 0 ? (
          <tr>
            <td colSpan={5} className="muted">
              no member
            </td>
          </tr>
        ) : null}
      </tbody>
    </table>
  )
}

function Generations({ group, startedAtMs }: { group: GroupViewData; startedAtMs: number }) {
  const workerOf = useMemo(() => workerIndex(group), [group])
  const shown: GroupGeneration[] = group.generations.slice(-SHOWN_GENERATIONS).reverse()
  const earlier = group.earlierGenerations + Math.max(0, group.generations.length - SHOWN_GENERATIONS)
  return (
    <ol className="group-generations" data-testid="group-generations">
      {shown.map((g) => (
        <li
          key={`${g.generationId}-${g.startedAtMs}`}
          data-testid="group-generation-row"
          data-generation={g.generationId ?? ''}
          data-members={g.members.map((m) => m.memberId).join(',')}
          data-partitions={g.members
            .flatMap((m) => m.partitions)
            .sort((a, b) => a - b)
            .join(',')}
        >
          <span className="gen-id mono">{g.generationId === null ? 'gen ?' : `gen ${g.generationId}`}</span>
          <span className="muted mono">{fmtSince(g.startedAtMs, startedAtMs)}</span>
          <span className="gen-members mono">
            {g.members.map((m) => `${m.workerId ?? m.memberId} ${fmtPartitions(m.partitions)}`).join(' · ')}
          </span>
          <span className="gen-end" data-testid="group-generation-end">
            {g.endedBy ? `ended ${fmtSince(g.endedBy.atMs, startedAtMs)}: ${fmtEnd(g.endedBy, workerOf)}` : 'current'}
          </span>
        </li>
      ))}
      {group.generations.length === 0 ? <li className="muted">no Stable generation seen yet</li> : null}
      {earlier > 0 ? <li className="muted">{`${fmtInt(earlier)} earlier generations`}</li> : null}
    </ol>
  )
}

function Offsets({ group }: { group: GroupViewData }) {
  return (
    <table className="history group-offsets" data-testid="group-offsets">
      <thead>
        <tr>
          <th>partition</th>
          <th className="r">committed</th>
          <th className="r">end (HW)</th>
          <th className="r">LAG</th>
        </tr>
      </thead>
      <tbody>
        {latestLag(group.lag).map((p) => (
          <tr key={p.partition} data-testid="group-offset-row" data-partition={p.partition}>
            <td className="mono">{`${group.topic}-${p.partition}`}</td>
            <td className="r mono">{p.committed === null ? '—' : fmtInt(p.committed)}</td>
            <td className="r mono">{fmtInt(p.end)}</td>
            <td className="r mono" data-testid="group-lag">
              {p.lag === null ? '—' : fmtInt(p.lag)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/**
 * The lab's consumer group as its coordinator holds it, its generations, and lag per input partition; live or held
 * like every panel.
 */
export const GroupView = memo(function GroupView({ group, startedAtMs }: GroupViewProps) {
  const config = useMemo(() => lagChart(group?.lag ?? [], group?.topic ?? ''), [group?.lag, group?.topic])
  const rows = useMemo(() => lagRows(group?.lag ?? [], startedAtMs), [group?.lag, startedAtMs])
  if (!group) return null
  const source =
    group.generationSource === 'coordinator'
      ? 'from the coordinator'
      : 'as all its members report it (DescribeGroups has none)'
  return (
    <Panel
      title="Consumer group"
      testId="group-view"
      className="group-panel"
      hint={
        `The consumer group “${group.groupId}” as its coordinator describes it (DescribeGroups): state, generation, ` +
        'members and their assignment; each generation seen Stable and what ended it; committed vs end offset and ' +
        'LAG per input partition.'
      }
      actions={
        <span className="group-summary">
          <span className={`badge group-state state-${group.state}`} data-testid="group-state">
            {group.state}
          </span>
          <span
            className="mono"
            data-testid="group-generation"
            data-generation={group.generationId ?? ''}
            title={`generation ${source}`}
          >
            {group.generationId === null ? 'generation ?' : `generation ${group.generationId}`}
          </span>
          <span className="muted mono">{`${group.protocolType || '—'} / ${group.protocol || '—'}`}</span>
        </span>
      }
    >
      {group.error ? <p className="group-error">{`Last describe failed: ${group.error}`}</p> : null}
      <div className="group-grid">
        <div className="group-col">
          <h3>Members</h3>
          <div className="table-scroll">
            <Members group={group} />
          </div>
          <h3>Generations</h3>
          <Generations group={group} startedAtMs={startedAtMs} />
        </div>
        <div className="group-col">
          <h3 title={config.hint}>Lag per input partition</h3>
          <TimeSeriesChart config={config} rows={rows} markers={NO_MARKERS} height={180} />
          <div className="table-scroll">
            <Offsets group={group} />
          </div>
        </div>
      </div>
    </Panel>
  )
})
