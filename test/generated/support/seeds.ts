/**
 * The seeds of the generated tiers. CI runs them with a fixed seed, so a run passes or fails
 * on the code, never on the draw; `GENERATED_INPUT_SEED=<n>` replays another (the one a
 * failure printed), and `GENERATED_INPUT_EXPLORE=1` (what `npm run test:explore` sets) draws
 * a fresh one each run. Every counterexample exploring finds becomes a fixed regression case.
 */

/** CI's seed: any fixed number does; changing it is a change of the tier, made on purpose. */
export const FIXED_SEED = 20_261_128;

export interface GeneratedRunSettings {
  seed: number;
}

/** The seed a tier's properties run with, printed once so that the run can be replayed. */
export function generatedRunSettings(tier: string): GeneratedRunSettings {
  const explore = process.env.GENERATED_INPUT_EXPLORE === '1';
  const given = process.env.GENERATED_INPUT_SEED;
  const seed = given !== undefined && given !== '' ? Number(given) : explore ? (Math.random() * 2 ** 31) | 0 : FIXED_SEED;
  if (!Number.isSafeInteger(seed)) throw new Error(`GENERATED_INPUT_SEED must be an integer, got ${given}`);
  process.stdout.write(`${tier}: seed ${seed}${explore ? ' (exploring)' : ''}; replay with GENERATED_INPUT_SEED=${seed}\n`);
  return { seed };
}
