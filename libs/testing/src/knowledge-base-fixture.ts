import type { AssetRecord, KnowledgeBaseItemRecord, KnowledgeBaseRecord } from '@waggle/contracts';
import { expectEventually } from './expect-eventually';

/** Whose knowledge base: the gateway's URL and a workspace's id and API key. */
export interface KnowledgeBaseOwner {
  gateway: string;
  id: string;
  key: string;
}

/** The document a knowledge base is made with, and the knowledge base's own fields (`name` among them). */
export interface KnowledgeBaseDocument {
  fileName: string;
  mediaType: string;
  text: string;
  knowledgeBase: Record<string, unknown> & { name: string };
}

/**
 * A knowledge base of the workspace holding one document, through the public and private routes
 * as a client makes one: the file uploaded as an asset (multipart), the knowledge base created,
 * the asset added as its item; answered once ingestion completed (the item parsed, chunked,
 * embedded with the workspace's embedding model, indexed), with the item's id.
 */
export async function knowledgeBaseWithDocument(
  owner: KnowledgeBaseOwner,
  document: KnowledgeBaseDocument,
): Promise<{ knowledgeBase: KnowledgeBaseRecord; itemId: string }> {
  const call = async <T>(method: string, path: string, body: FormData | Record<string, unknown>): Promise<T> => {
    const response = await fetch(`${owner.gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${owner.key}`, ...(!(body instanceof FormData) && { 'content-type': 'application/json' }) },
      body: body instanceof FormData ? body : JSON.stringify(body),
    });
    if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  };
  const form = new FormData();
  form.append('file', new Blob([document.text], { type: document.mediaType }), document.fileName);
  const { asset } = await call<{ asset: AssetRecord }>('POST', `/v1/public/workspaces/${owner.id}/assets`, form);
  const { knowledge_base: knowledgeBase } = await call<{ knowledge_base: KnowledgeBaseRecord }>(
    'POST',
    `/v1/public/workspaces/${owner.id}/knowledge_bases`,
    { knowledge_base: document.knowledgeBase },
  );
  const { knowledge_base_item: item } = await call<{ knowledge_base_item: KnowledgeBaseItemRecord }>(
    'POST',
    `/v1/private/knowledge_bases/${knowledgeBase.id}/items`,
    { asset_id: asset.id },
  );
  await expectEventually(
    async () => {
      const response = await fetch(`${owner.gateway}/v1/public/workspaces/${owner.id}/knowledge_bases/${knowledgeBase.id}/items`, {
        headers: { authorization: `Bearer ${owner.key}` },
      });
      const { knowledge_base_items: items } = (await response.json()) as { knowledge_base_items: KnowledgeBaseItemRecord[] };
      expect(items).toEqual([expect.objectContaining({ name: document.fileName, item_type: 'asset', run_status: 'completed' })]);
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  return { knowledgeBase, itemId: item.id };
}
