import { readFileSync } from 'node:fs';
import { Inject, Injectable } from '@nestjs/common';
import { buffer } from 'node:stream/consumers';
import { AssetPatterns, send } from '@waggle/contracts';
import { AttachmentFetcher, AttachmentFetchError, detectDocumentType, extractDocumentText, DocumentReadError } from '@waggle/documents';
import { WaggleException } from '@waggle/errors';
import { APP_ENV, FileStaging, NatsRpcClient } from '@waggle/platform';
import type { KnowledgeBaseEnv } from '../config/knowledge-base.env';
import type { KnowledgeBaseItem } from '../knowledge-bases/knowledge-base';

/** A document that will never be read however often it is tried (corrupt, empty, unsupported, refused): the item fails at once. */
export class UnreadableDocument extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreadableDocument';
  }
}

/** Fetch failures a retry cannot mend: the URL is refused, too large, or answered with a client error. */
function isPermanentFetchFailure(error: AttachmentFetchError): boolean {
  if (error.code === 'http_status')
    return error.status !== undefined && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
  return error.code === 'invalid_url' || error.code === 'refused' || error.code === 'too_large' || error.code === 'too_many_redirects';
}

/**
 * An item's document as text: its bytes from the asset service (staged in the NATS object
 * store, read once and deleted) or from its `https://` URL through the SSRF guard (this
 * service's own allowlist, size and time caps, extra CAs), its type detected from the bytes
 * and its text extracted by the documents library. Throws UnreadableDocument for what no
 * retry would change; anything else (an outage) is worth retrying.
 */
@Injectable()
export class DocumentSource {
  private readonly fetcher: AttachmentFetcher;

  constructor(
    private readonly rpc: NatsRpcClient,
    private readonly staging: FileStaging,
    @Inject(APP_ENV) env: KnowledgeBaseEnv,
  ) {
    this.fetcher = new AttachmentFetcher({
      allowlist: env.KB_URL_ALLOWLIST,
      allowlistSetting: 'KB_URL_ALLOWLIST',
      maxBytes: env.KB_URL_MAX_BYTES,
      timeoutMs: env.KB_URL_TIMEOUT_MS,
      ...(env.KB_URL_EXTRA_CA_FILE !== '' && { ca: readFileSync(env.KB_URL_EXTRA_CA_FILE, 'utf8') }),
    });
  }

  /** The item's text, and the document's type as detected (pdf, markdown, docx…). */
  async text(item: KnowledgeBaseItem, signal?: AbortSignal): Promise<{ text: string; type: string }> {
    const document = item.itemType === 'asset' ? await this.fromAsset(item) : await this.fromUrl(item, signal);
    const detected = await detectDocumentType(document.bytes, document.hints);
    let text: string;
    try {
      text = await extractDocumentText(document.bytes, detected.type, detected.mime);
    } catch (error) {
      if (error instanceof DocumentReadError) throw new UnreadableDocument(`The document could not be read: ${error.message}`);
      throw error;
    }
    if (text.trim() === '') throw new UnreadableDocument('The document has no text to index');
    return { text, type: detected.type };
  }

  private async fromUrl(item: KnowledgeBaseItem, signal?: AbortSignal) {
    const url = item.sourceUrl ?? '';
    try {
      const fetched = await this.fetcher.fetch(url, { signal });
      return {
        bytes: fetched.bytes,
        hints: { fileName: fetched.fileName, url: [fetched.finalUrl, url], contentType: fetched.contentType },
      };
    } catch (error) {
      if (error instanceof AttachmentFetchError && isPermanentFetchFailure(error))
        throw new UnreadableDocument(`The document could not be fetched: ${error.message}`);
      throw error;
    }
  }

  private async fromAsset(item: KnowledgeBaseItem) {
    const staged = await send(this.rpc, AssetPatterns.stageAsset, {
      workspace_id: item.workspaceId,
      asset_id: item.sourceAssetId ?? '',
    }).catch((error: unknown) => {
      if (error instanceof WaggleException && error.code === 'resource_not_found')
        throw new UnreadableDocument('The asset no longer exists');
      throw error;
    });
    try {
      const opened = await this.staging.open(staged.staged_object);
      if (!opened) throw new Error(`the staged copy of asset ${staged.asset.id} is gone`);
      return { bytes: await buffer(opened.stream), hints: { fileName: staged.asset.name, contentType: staged.asset.content_type } };
    } finally {
      await this.staging.remove(staged.staged_object).catch(() => undefined);
    }
  }
}
