// What every page must hold to, read in the browser: its height against the window, what axe-core
// finds, and program text where a person reads (camelCase identifiers, raw floats, -1 sentinels).

import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { programText } from '../lib/program-text.ts'
import { ROOT } from './server-process.ts'

const AXE_SOURCE = readFileSync(path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8')

export interface AxeFinding {
  id: string
  impact: string | null
  nodes: string[]
}

/** axe-core's critical and serious violations on the page as it stands. */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE)
  return page.evaluate(async () => {
    type Result = {
      violations: { id: string; impact: string | null; nodes: { target: string[]; failureSummary?: string }[] }[]
    }
    const axe = (window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<Result> } }).axe
    const result = await axe.run(document, { resultTypes: ['violations'] })
    return result.violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${(n.failureSummary ?? '').slice(0, 200)}`),
      }))
  })
}

export interface PageAudit {
  heightPx: number
  viewportPx: number
  violations: AxeFinding[]
  programText: string[]
}

/** Audits the page shown now. */
export async function auditPage(page: Page): Promise<PageAudit> {
  const { heightPx, viewportPx, text } = await page.evaluate(() => ({
    heightPx: document.documentElement.scrollHeight,
    viewportPx: window.innerHeight,
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text a reader sees, not hidden nodes
    text: document.body.innerText,
  }))
  return { heightPx, viewportPx, violations: await seriousViolations(page), programText: programText(text) }
}
