import { describe, expect, it } from 'vitest'
import { internalPartitionFor, javaStringHashCode } from './internal-partition.ts'

describe('internalPartitionFor', () => {
  it('hashes an id as Java does', () => {
    expect(javaStringHashCode('')).toBe(0)
    expect(javaStringHashCode('hello')).toBe(99_162_322)
    expect(javaStringHashCode('eoscope')).toBe(-1_564_308_502)
    // Java's Integer.MIN_VALUE.
    expect(javaStringHashCode('polygenelubricants')).toBe(-2_147_483_648)
  })

  it('picks the partition as the coordinators do: Utils.abs(hashCode) % partitions', () => {
    expect(internalPartitionFor('hello', 50)).toBe(99_162_322 % 50)
    // A negative hash is negated, not masked: masking the sign bit gives 46 for "eoscope", Kafka 2.
    expect(internalPartitionFor('eoscope', 50)).toBe(2)
    // A broker with 8 offsets partitions wrote this group's records to partition 5 (masking gave 3).
    expect(internalPartitionFor('eoscope-lab-mx5cpckg', 8)).toBe(5)
    // Utils.abs gives 0 for Integer.MIN_VALUE (its negation overflows).
    expect(internalPartitionFor('polygenelubricants', 50)).toBe(0)
    expect(internalPartitionFor('', 50)).toBe(0)
    expect(internalPartitionFor('anything', 1)).toBe(0)
    expect(() => internalPartitionFor('x', 0)).toThrow(RangeError)
  })
})
