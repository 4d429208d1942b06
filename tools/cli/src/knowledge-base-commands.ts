import { KnowledgeBasePatterns, type KnowledgeBaseItemRecord } from '@waggle/contracts';
import { Option, type Command } from 'commander';
import type { Caller, Collector } from './cli';
import { print } from './output';

const itemRow = (item: KnowledgeBaseItemRecord) => ({
  id: item.id,
  name: item.name,
  item_type: item.item_type,
  run_status: item.run_status,
  chunks: item.chunks_count,
  error: item.error,
});

/**
 * `kb item add|show|list` and `kb embedding-model show|set`: a knowledge base's documents and
 * the workspace's embedding model, as the private routes manage them.
 */
export function addKnowledgeBaseCommands(program: Command, call: Caller, collect: Collector): void {
  const json = () => new Option('--json', 'print JSON for scripts');
  const kb = program.command('kb').description('knowledge bases of a workspace');
  const item = kb.command('item').description("a knowledge base's documents");
  item
    .command('add <workspace-id> <knowledge-base-id>')
    .description('queue a document for ingestion: an asset of the workspace (--asset) or an https URL (--url)')
    .option('--asset <asset-id>', 'an asset of the workspace')
    .option('--url <url>', 'an https:// URL, fetched through the SSRF guard')
    .option('--name <name>', "the item's name (default: the asset's name or the URL's last path segment)")
    .addOption(json())
    .action(
      async (workspaceId: string, knowledgeBaseId: string, options: { asset?: string; url?: string; name?: string; json?: boolean }) => {
        const added = await call(KnowledgeBasePatterns.addItem, {
          workspace_id: workspaceId,
          knowledge_base_id: knowledgeBaseId,
          asset_id: options.asset,
          url: options.url,
          name: options.name,
        });
        print(added, Boolean(options.json), [itemRow(added)]);
      },
    );
  item
    .command('show <workspace-id> <knowledge-base-id> <item-id>')
    .description('one document: its ingestion status, chunk count and error')
    .addOption(json())
    .action(async (workspaceId: string, knowledgeBaseId: string, itemId: string, options: { json?: boolean }) => {
      const found = await call(KnowledgeBasePatterns.getItem, {
        workspace_id: workspaceId,
        knowledge_base_id: knowledgeBaseId,
        item_id: itemId,
      });
      print(found, Boolean(options.json), [itemRow(found)]);
    });
  item
    .command('list <workspace-id> <knowledge-base-id>')
    .description('every document of a knowledge base')
    .addOption(json())
    .action(async (workspaceId: string, knowledgeBaseId: string, options: { json?: boolean }) => {
      const items = (
        await collect(KnowledgeBasePatterns.listItems, { workspace_id: workspaceId, knowledge_base_id: knowledgeBaseId })
      ).flat();
      print(items, Boolean(options.json), items.map(itemRow));
    });
  const model = kb.command('embedding-model').description('the embedding model new knowledge bases of the workspace are created with');
  model
    .command('show <workspace-id>')
    .description("the workspace's embedding model for new knowledge bases")
    .addOption(json())
    .action(async (workspaceId: string, options: { json?: boolean }) => {
      const setting = await call(KnowledgeBasePatterns.getEmbeddingModel, { workspace_id: workspaceId });
      print(setting, Boolean(options.json), [{ ...setting }]);
    });
  model
    .command('set <workspace-id> <model-id>')
    .description('an active embedding model of the catalog; existing knowledge bases keep theirs')
    .addOption(json())
    .action(async (workspaceId: string, modelId: string, options: { json?: boolean }) => {
      const setting = await call(KnowledgeBasePatterns.setEmbeddingModel, { workspace_id: workspaceId, embedding_model: modelId });
      print(setting, Boolean(options.json), [{ ...setting }]);
    });
}
