import { FakeProviderServer, integerFromEnv, runFakeServer, type FakeBehaviour } from '@waggle/fake-provider';

const count = (name: string, fallback: number): number => integerFromEnv('fake-provider', name, fallback);

/**
 * The fake model provider as a process, for trying Waggle without any provider key and
 * for benchmarks; scripted per model over HTTP (`PUT /_fake/models/{id}`).
 */
runFakeServer('fake-provider', async () => {
  const defaults: Partial<FakeBehaviour> = {
    latencyMs: count('FAKE_PROVIDER_LATENCY_MS', 0),
    tokenDelayMs: count('FAKE_PROVIDER_TOKEN_DELAY_MS', 0),
    chunkSize: Math.max(1, count('FAKE_PROVIDER_CHUNK_SIZE', 1)),
  };
  const server = new FakeProviderServer(defaults, { maxRecords: count('FAKE_PROVIDER_MAX_RECORDS', 1_000) });
  const url = await server.start(count('FAKE_PROVIDER_PORT', 4010), process.env.FAKE_PROVIDER_HOST || '127.0.0.1');
  return {
    banner: [
      `fake-provider: listening on ${url}`,
      `  OpenAI chat completions: POST ${url}/v1/chat/completions   (OPENAI_BASE_URL=${url}/v1, any key)`,
      `  Anthropic messages:      POST ${url}/v1/messages           (ANTHROPIC_BASE_URL=${url}/v1, any key)`,
      `  OpenAI embeddings:       POST ${url}/v1/embeddings         (deterministic vectors; dimensions honoured)`,
      `  script a model: PUT ${url}/_fake/models/{model}   requests: GET|DELETE ${url}/_fake/requests`,
      '  (tool calls: {"turns": [{"toolCalls": [{"name": "...", "arguments": {...}}]}, {"response": "..."}]})',
      '  (failures: {"error": {"status": 429}}, {"hang": true}; JSON answers: {"json": {"answer": "valid" | "invalid_once" | "invalid"}})',
    ],
    stop: () => server.stop(),
  };
});
