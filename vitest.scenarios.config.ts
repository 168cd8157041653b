// The guided scenarios run on the system clock and measure throughput and recovery: they run on
// their own, one at a time, after the unit tests, so no other test file competes for the CPU.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['server/lab/scenarios/**/*.test.ts'],
    testTimeout: 180_000,
    fileParallelism: false,
  },
})
