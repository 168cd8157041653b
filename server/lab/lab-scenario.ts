// A guided scenario started from the dashboard: it runs on the lab on screen (each lab it starts
// replaces the current one) while its narrative and verdict fill the scenario view.

import type { CommandResult, ScenarioView } from '../../lib/lab-protocol.ts'
import { runScenario, scenarioByName } from './scenarios/index.ts'
import type { ScenarioHost } from './scenarios/scenario.ts'

/** Starts a scenario unless one is still running; its view is filled in as it goes. */
export function startScenario(name: string, current: ScenarioView | null, host: ScenarioHost, nowMs: number): { result: CommandResult; view: ScenarioView | null } {
  const scenario = scenarioByName(name)
  if (!scenario) return { result: { ok: false, error: `unknown scenario ${JSON.stringify(name)}` }, view: null }
  if (current?.status === 'running') return { result: { ok: false, error: `scenario ${current.name} is still running` }, view: null }
  const view: ScenarioView = { name: scenario.name, title: scenario.title, summary: scenario.summary, status: 'running', narrative: [], expectations: [], conclusion: null, error: null, startedAtMs: nowMs }
  void runScenario(scenario, host, (line) => view.narrative.push(line)).then(
    (r) => Object.assign(view, { status: r.passed ? 'passed' : 'failed', expectations: r.expectations, conclusion: r.conclusion }),
    (e: unknown) => Object.assign(view, { status: 'error', error: e instanceof Error ? e.message : 'scenario failed' }),
  )
  return { result: { ok: true, message: `scenario ${scenario.name} started` }, view }
}
