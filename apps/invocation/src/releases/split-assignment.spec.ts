import { SPLIT_BUCKETS } from '@waggle/contracts';
import { splitBucket, splitTargetAt } from './split-assignment';

describe('split assignment', () => {
  const targets = [
    { version: 1, weight: 90 },
    { version: 2, weight: 10 },
  ];

  it('gives 10,000 simulated users a share within 1 point of 90/10', () => {
    const users = Array.from({ length: 10_000 }, (_, i) => `user-${i}`);
    const second = users.filter((user) => splitTargetAt(targets, splitBucket('split-a', user)).version === 2).length;
    expect(Math.abs(second / users.length - 0.1)).toBeLessThanOrEqual(0.01);
  });

  it('is a pure function of the split id and the user: the same on every call, a known value in every process', () => {
    expect(splitBucket('split-a', 'alice')).toBe(splitBucket('split-a', 'alice'));
    // Pinned: a process-seeded hash (or Math.random) would not give this value in a fresh process.
    expect(splitBucket('00000000-0000-4000-8000-000000000000', 'alice')).toBe(KNOWN_BUCKET);
    const buckets = new Set(Array.from({ length: 50 }, (_, i) => splitBucket(`split-${i}`, 'alice')));
    // A new split id deals the buckets again.
    expect(buckets.size).toBeGreaterThan(40);
  });

  it('maps buckets onto the targets in order by weight', () => {
    expect(splitTargetAt(targets, 0)).toBe(targets[0]);
    expect(splitTargetAt(targets, 8_999)).toBe(targets[0]);
    expect(splitTargetAt(targets, 9_000)).toBe(targets[1]);
    expect(splitTargetAt(targets, SPLIT_BUCKETS - 1)).toBe(targets[1]);
  });
});

/** The first four bytes of SHA-256("00000000-0000-4000-8000-000000000000" NUL "alice"), big-endian, mod 10,000. */
const KNOWN_BUCKET = 4873;
