// The fail banner, the stopped task rows, the poison controls and the kill-at-step menu, rendered
// from snapshots.

import { describe, expect, it } from 'vitest'
import type { LabSnapshot, TaskStopView } from '../lib/lab-protocol.ts'
import { fixtureKafkaOutage, fixtureSnapshot } from './__fixtures__/lab-snapshot.ts'
import { stopsOf } from './fail-banner.tsx'
import { renderLab } from './__fixtures__/render-lab.ts'

function render(snapshot: LabSnapshot): string {
  return renderLab(snapshot, { pages: ['overview', 'partitions'] })
}

const STOP: TaskStopView = {
  taskId: '0_3',
  topic: 'input',
  partition: 3,
  offset: 1234,
  key: 'k0007',
  valueHead: 'not-a-number-5531',
  handler: 'fail',
  message: 'task 0_3: input record at input-3@1234 has a value that does not parse',
}

const stoppedLab: LabSnapshot = {
  ...fixtureSnapshot,
  config: { ...fixtureSnapshot.config, 'default.deserialization.exception.handler': 'fail' },
  workers: fixtureSnapshot.workers.map((w) =>
    w.id === 'worker-2' ? { ...w, state: 'stopped', taskIds: [], producers: [], error: STOP.message, stop: STOP } : w,
  ),
  tasks: fixtureSnapshot.tasks.filter((t) => t.partition % 2 === 0),
  stoppedTasks: [
    { taskId: '0_1', partition: 1, workerId: 'worker-2', stop: null, committedOffset: 900, lag: 120 },
    { taskId: '0_3', partition: 3, workerId: 'worker-2', stop: STOP, committedOffset: 1234, lag: 300 },
  ],
}

describe('a lab stopped by a poison record under fail', () => {
  it('says which record stopped which task, the lag piling up, and offers skip and reset', () => {
    const html = render(stoppedLab)
    expect(html).toContain('data-testid="fail-banner"')
    expect(html).toMatch(
      /data-testid="fail-stop-0_3">task <span[^>]*>0_3<\/span> on <span[^>]*>worker-2<\/span> (<!-- -->)?stopped at/,
    )
    expect(html).toContain('input<!-- -->-<!-- -->3<!-- --> @ offset <!-- -->1234')
    expect(html).toContain('&quot;not-a-number-5531&quot;')
    expect(html).toMatch(/data-testid="fail-lag">420</)
    expect(html).toContain('data-testid="fail-skip"')
    expect(html).toContain('data-testid="fail-reset"')
    // The stopped tasks keep their rows, with their true lag.
    expect(html).toMatch(/data-testid="stopped-task-0_3"[\s\S]*?>300</)
    expect(html).toContain('data-testid="stopped-task-0_1"')
    expect(html).toMatch(/data-testid="stop-worker-2"[^>]*>poison <!-- -->input<!-- -->-<!-- -->3<!-- -->@<!-- -->1234/)
  })

  it('shows no banner while nothing is stopped, and names a record met by several workers once', () => {
    expect(render(fixtureSnapshot)).not.toContain('fail-banner')
    const again = { ...stoppedLab.workers[1]!, id: 'worker-2.2' }
    expect(stopsOf([...stoppedLab.workers, again])).toHaveLength(1)
  })
})

describe('poison and kill-at-step controls', () => {
  it('offer a poison count, both handlers, the dead-letter count and a kill menu with the five steps', () => {
    const html = render({ ...fixtureSnapshot, totals: { ...fixtureSnapshot.totals, deadLetters: 7 } })
    expect(html).toContain('data-testid="inject-poison"')
    expect(html).toMatch(/aria-checked="true"[^>]*data-testid="handler-log-and-continue"/)
    expect(html).toMatch(/data-testid="dead-letters"[^>]*>7</)
    expect(html).toContain('data-testid="kill-step-worker-1"')
    expect(html).toContain('at step <!-- -->4<!-- --> · <!-- -->broker ack')
    expect(html).not.toMatch(/<select[^>]*disabled=""[^>]*data-testid="kill-step-worker-1"/)
  })

  it('disable what the backend cannot do, with its reason', () => {
    const html = render({
      ...fixtureKafkaOutage,
      unavailable: {
        ...fixtureKafkaOutage.unavailable,
        failHandler: 'the fail policy is shown on the embedded backend',
        killAtStep: 'no kill at a step here',
      },
    })
    expect(html).toMatch(
      new RegExp(
        /disabled=""[^>]*title="the fail policy is shown on the embedded backend"[^>]*/.source +
          /data-testid="handler-fail"|data-testid="handler-fail"[^>]*disabled=""/.source,
      ),
    )
    expect(html).toContain('data-testid="unavailable-fail-handler"')
    expect(html).toMatch(/<select[^>]*disabled=""[^>]*title="no kill at a step here"/)
    expect(html).toContain('data-testid="unavailable-kill-step-worker-1"')
  })
})
