import type { ValueTransformer } from 'typeorm';

/** pg returns bigint as a string; byte counts fit comfortably in a JS number. */
export const bigintAsNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
