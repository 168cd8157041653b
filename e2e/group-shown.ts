// What the Group view shows, read from the page: state, generation, members (with their worker and
// partitions), the generation rows, and the running workers' cards to compare with.

import type { Page } from 'playwright-core'

export interface ShownGroup {
  state: string
  generation: number | null
  members: { member: string; worker: string; partitions: string }[]
  generations: { generation: number | null; members: string[]; partitions: string; end: string }[]
  running: string[]
}

export function shownGroup(page: Page): Promise<ShownGroup> {
  return page.evaluate(() => {
    const attr = (e: Element, name: string) => e.getAttribute(name) ?? ''
    const num = (s: string) => (s === '' ? null : Number(s))
    const view = document.querySelector('[data-testid="group-view"]')
    return {
      state: view?.querySelector('[data-testid="group-state"]')?.textContent ?? '',
      generation: num(view?.querySelector('[data-testid="group-generation"]')?.getAttribute('data-generation') ?? ''),
      members: [...document.querySelectorAll('[data-testid="group-member"]')].map((e) => ({
        member: attr(e, 'data-member'),
        worker: attr(e, 'data-worker'),
        partitions: attr(e, 'data-partitions'),
      })),
      generations: [...document.querySelectorAll('[data-testid="group-generation-row"]')].map((e) => ({
        generation: num(attr(e, 'data-generation')),
        members: attr(e, 'data-members').split(',').filter(Boolean),
        partitions: attr(e, 'data-partitions'),
        end: e.querySelector('[data-testid="group-generation-end"]')?.textContent ?? '',
      })),
      running: [...document.querySelectorAll('article.worker-card[data-state="running"]')].map((e) =>
        attr(e, 'data-testid').replace(/^worker-/, ''),
      ),
    }
  })
}
