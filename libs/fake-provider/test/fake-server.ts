import { FakeProviderServer } from '../src';

/**
 * A fake provider started for the enclosing describe block and forgotten between tests
 * (scripts and records). `url()` is its base URL once started.
 */
export function useFakeProvider(): { server: FakeProviderServer; url: () => string } {
  const server = new FakeProviderServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  afterEach(() => server.reset());
  return { server, url: () => server.url };
}
