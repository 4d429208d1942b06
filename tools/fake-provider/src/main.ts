import { FakeProviderServer, type FakeBehaviour } from '@waggle/fake-provider';

function count(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    process.stderr.write(`fake-provider: ${name} must be a non-negative integer\n`);
    process.exit(78);
  }
  return value;
}

/**
 * The fake model provider as a process, for trying Waggle without any provider key and
 * for benchmarks; scripted per model over HTTP (`PUT /_fake/models/{id}`).
 */
async function main(): Promise<void> {
  const defaults: Partial<FakeBehaviour> = {
    latencyMs: count('FAKE_PROVIDER_LATENCY_MS', 0),
    tokenDelayMs: count('FAKE_PROVIDER_TOKEN_DELAY_MS', 0),
    chunkSize: Math.max(1, count('FAKE_PROVIDER_CHUNK_SIZE', 1)),
  };
  const server = new FakeProviderServer(defaults, { maxRecords: count('FAKE_PROVIDER_MAX_RECORDS', 1_000) });
  const url = await server.start(count('FAKE_PROVIDER_PORT', 4010), process.env.FAKE_PROVIDER_HOST || '127.0.0.1');
  process.stdout.write(
    [
      `fake-provider: listening on ${url}`,
      `  OpenAI chat completions: POST ${url}/v1/chat/completions   (OPENAI_BASE_URL=${url}/v1, any key)`,
      `  Anthropic messages:      POST ${url}/v1/messages           (ANTHROPIC_BASE_URL=${url}/v1, any key)`,
      `  OpenAI embeddings:       POST ${url}/v1/embeddings         (deterministic vectors; dimensions honoured)`,
      `  script a model: PUT ${url}/_fake/models/{model}   requests: GET|DELETE ${url}/_fake/requests`,
      '  (tool calls: {"turns": [{"toolCalls": [{"name": "...", "arguments": {...}}]}, {"response": "..."}]})',
      '  (failures: {"error": {"status": 429}}, {"hang": true}; JSON answers: {"json": {"answer": "valid" | "invalid_once" | "invalid"}})',
      '',
    ].join('\n'),
  );
  const shutdown = (): void => {
    void server.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`fake-provider: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
