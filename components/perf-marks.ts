/** performance.mark name set when the first live snapshot is on screen (time to first data). */
export const FIRST_DATA_MARK = 'eoscope:first-data'
