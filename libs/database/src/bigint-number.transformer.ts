import type { ValueTransformer } from 'typeorm';

/** pg returns bigint as a string; byte counts and micro-USD amounts fit comfortably in a JS number (below 2^53). */
export const bigintAsNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
