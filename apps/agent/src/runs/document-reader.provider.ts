import { readFileSync } from 'node:fs';
import type { Provider } from '@nestjs/common';
import { AttachmentFetcher, DocumentReader } from '@waggle/documents';
import { APP_ENV } from '@waggle/platform';
import type { AgentEnv } from '../config/agent.env';

export const DOCUMENT_READER = Symbol('DOCUMENT_READER');

/** `read_file`'s reader: attachments fetched through the SSRF guard with the operator's caps, allowlist and extra CAs. */
export const documentReaderProvider: Provider = {
  provide: DOCUMENT_READER,
  inject: [APP_ENV],
  useFactory: (env: AgentEnv) =>
    new DocumentReader({
      fetcher: new AttachmentFetcher({
        allowlist: env.ATTACHMENT_URL_ALLOWLIST,
        maxBytes: env.ATTACHMENT_MAX_BYTES,
        timeoutMs: env.ATTACHMENT_TIMEOUT_MS,
        ...(env.ATTACHMENT_EXTRA_CA_FILE !== '' && { ca: readFileSync(env.ATTACHMENT_EXTRA_CA_FILE, 'utf8') }),
      }),
    }),
};
