// The statistics of a measured cell live in lib/statistics.ts (pure, shared with the page and the
// protocol's cells); re-exported here for the sweep's code.
export * from '../../lib/statistics.ts'
