import type { OnApplicationShutdown } from '@nestjs/common';
import type { Agent } from 'undici';

/** The one connection pool every callback goes out through (guarded), closed after the worker. */
export class OutboundDispatcher implements OnApplicationShutdown {
  constructor(readonly agent: Agent) {}

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close().catch(() => this.agent.destroy());
  }
}
