// Next.js configuration. The app is served by the custom server in server/index.ts, which keeps
// /api and /socket.io for itself before Next's handler sees a request.

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  devIndicators: false,
  // The build type-checks what the pages are made of; `npm run typecheck` checks the whole tree,
  // server and tests included.
  typescript: { tsconfigPath: 'tsconfig.next.json' },
}

export default nextConfig
