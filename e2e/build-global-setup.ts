// vitest globalSetup: the production build the browser tests serve, made once before any test file
// starts (two files starting the server at once would otherwise both run `next build`).

import { ensureBuild } from './server-process.ts'

export default function setup(): void {
  ensureBuild()
}
