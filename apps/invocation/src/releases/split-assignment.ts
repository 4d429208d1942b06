import { createHash } from 'node:crypto';
import { SPLIT_BUCKETS, type SplitTarget } from '@waggle/contracts';

/**
 * The bucket (0 … SPLIT_BUCKETS − 1) a caller falls in for a split: the first four bytes of
 * SHA-256 over the split's id and the caller's key. A pure function of its arguments, so every
 * replica, and every process after a restart, puts a user in the same bucket; a new split id
 * (new targets or weights) deals the buckets again.
 */
export function splitBucket(splitId: string, key: string): number {
  const digest = createHash('sha256').update(splitId).update('\u0000').update(key).digest();
  return digest.readUInt32BE(0) % SPLIT_BUCKETS;
}

/**
 * The target whose share of the buckets holds `bucket`: the targets in their order, each taking
 * `weight` hundredths of the buckets (the weights sum to 100, checked when the split is applied).
 */
export function splitTargetAt(targets: readonly SplitTarget[], bucket: number): SplitTarget {
  let end = 0;
  for (const target of targets) {
    end += (target.weight * SPLIT_BUCKETS) / 100;
    if (bucket < end) return target;
  }
  return targets[targets.length - 1];
}
