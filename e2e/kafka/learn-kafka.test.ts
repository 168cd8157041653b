// The Learn page in Chromium on the Kafka backend (the broker npm run test:kafka starts): the lab's
// workers are processes on the real cluster, and a chapter's button runs its scenarios on it.
// Every chapter's fault is one Kafka offers (kills, lost acks through the ack-drop proxy, pauses,
// both isolation levels), so every chapter opens with its button enabled and no refusal.
//
// Chapter 4 has its button pressed and its claim checked on the page here. Each scenario on Kafka
// waits a session timeout per kill, and the chapters' scenarios are run one by one on the same
// broker by scenarios-kafka.test.ts; pressing every chapter's button in the browser too would add
// about seven minutes to the suite. EOSCOPE_LEARN_WALK=all (npm run test:learn-walk:kafka) presses
// every chapter's button, in order.

import { expect, inject, it } from 'vitest'
import { LEARN_CHAPTERS } from '../../lib/learn-chapters.ts'
import { KAFKA_GROUP_TIMEOUTS } from '../../server/log/kafka/capabilities.ts'
import { SHOTS, describeInChromium } from '../chromium-page.ts'
import { chapterReady, openChapter, walkChapter } from '../learn-steps.ts'

const brokers = inject('kafkaBrokers')
/** States reached after a failure (a kill detected, partitions moved): a few session timeouts. */
const STATE_MS = 6 * KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs + 30_000
const STALL_MS = 6 * KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs
const WALKED: readonly number[] = process.env.EOSCOPE_LEARN_WALK === 'all' ? LEARN_CHAPTERS.map((c) => c.n) : [4]

describeInChromium(
  'the Learn page on the Kafka backend',
  {
    server: () => {
      if (!brokers) throw new Error('no Kafka broker: run these tests with npm run test:kafka')
      return { env: { EOSCOPE_BACKEND: 'kafka', KAFKA_BROKERS: brokers }, timeoutMs: 90_000 }
    },
    open: '/learn',
  },
  (lab) => {
    it('opens on chapter 1 with the lab on Kafka', async () => {
      const { page } = lab
      await page.setViewportSize({ width: 1440, height: 900 })
      await page.getByTestId('page-learn').waitFor({ timeout: STATE_MS })
      expect(await page.locator('[data-testid="learn-chapter"]').getAttribute('data-chapter')).toBe('1')
      await expect.poll(() => page.getByTestId('backend').textContent(), { timeout: STATE_MS }).toContain('kafka')
    })

    for (const chapter of LEARN_CHAPTERS) {
      const walked = WALKED.includes(chapter.n)
      const title = walked
        ? `chapter ${chapter.n}, ${chapter.title}: its button runs it on the cluster and its claim holds`
        : `chapter ${chapter.n}, ${chapter.title}: opens with its button enabled, nothing refused on Kafka`
      it(title, { timeout: 900_000 }, async () => {
        const { page } = lab
        await openChapter(page, chapter.n, STATE_MS)
        // A workable lab first: the button waits for the lab to run.
        await expect.poll(() => page.getByTestId('learn-run').isEnabled(), { timeout: STATE_MS }).toBe(true)
        await chapterReady(page, chapter)
        if (walked)
          await walkChapter(page, chapter, {
            stallMs: STALL_MS,
            shots: SHOTS,
            shot: `kafka-learn-chapter-${chapter.n}.png`,
          })
      })
    }
  },
)
