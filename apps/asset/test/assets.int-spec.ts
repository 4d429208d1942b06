import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { AssetPatterns, CatalogPatterns, type AssetRecord, type StoreAssetRequest } from '@waggle/contracts';
import { FileStaging } from '@waggle/platform';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import {
  cliJson,
  freePort,
  spawnApp,
  startServiceUnderTest,
  waitUntilLive,
  type AppProcess,
  type ServiceUnderTest,
  failure,
} from '@waggle/testing';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { bootstrap } from '../src/bootstrap';

// s3rver ships no types; the part the test uses.
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<AddressInfo>; close(): Promise<void> };

const ASSET_NOT_FOUND = { code: 'resource_not_found', status: 422, message: 'Asset not found' };
const STORAGE_LIMIT = { code: 'asset_storage_limit_reached', status: 402 };
/** The smallest valid PNG: signature, IHDR, IDAT, IEND. */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1d5b3a30000000049454e44ae426082',
  'hex',
);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function readAll(opened: { stream: Readable } | null): Promise<Buffer> {
  if (!opened) throw new Error('the staged object is missing');
  const chunks: Buffer[] = [];
  for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface Driver {
  name: 'filesystem' | 's3';
  env: Record<string, string>;
  /** The storage keys the driver holds under the workspace's prefix. */
  keys(workspaceId: string): Promise<string[]>;
  stop(): Promise<void>;
}

async function filesystemDriver(): Promise<Driver> {
  const directory = mkdtempSync(join(tmpdir(), 'waggle-assets-'));
  return {
    name: 'filesystem',
    env: { ASSET_STORAGE_DRIVER: 'filesystem', ASSET_STORAGE_DIR: directory },
    keys: async (workspaceId) => {
      try {
        return readdirSync(join(directory, workspaceId)).map((file) => `${workspaceId}/${file}`);
      } catch {
        return [];
      }
    },
    stop: async () => rmSync(directory, { recursive: true, force: true }),
  };
}

async function s3Driver(): Promise<Driver> {
  const directory = mkdtempSync(join(tmpdir(), 'waggle-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const address = await server.run();
  const endpoint = `http://127.0.0.1:${address.port}`;
  const bucket = `waggle-assets-${randomUUID().slice(0, 8)}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    name: 's3',
    env: {
      ASSET_STORAGE_DRIVER: 's3',
      ASSET_S3_BUCKET: bucket,
      ASSET_S3_ENDPOINT: endpoint,
      ASSET_S3_REGION: 'us-east-1',
      ASSET_S3_ACCESS_KEY_ID: 'S3RVER',
      ASSET_S3_SECRET_ACCESS_KEY: 'S3RVER',
      ASSET_S3_FORCE_PATH_STYLE: 'true',
    },
    keys: async (workspaceId) => {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${workspaceId}/` }));
      return (listed.Contents ?? []).map((object) => object.Key as string);
    },
    stop: async () => {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * The asset service started in-process by its own bootstrap and called over NATS as the
 * gateway calls it, with the real catalog service (a built process) answering its plan checks
 * and real bytes in the JetStream staging bucket: once per storage driver, the filesystem one
 * and the S3 one against an s3rver on loopback.
 */
describe('asset service over NATS: assets', () => {
  let catalog: AppProcess;

  beforeAll(async () => {
    catalog = spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' });
    await waitUntilLive(catalog);
  });

  afterAll(async () => {
    await catalog?.stop();
  });

  describe.each([['filesystem', filesystemDriver] as const, ['s3', s3Driver] as const])('with the %s driver', (_name, makeDriver) => {
    let driver: Driver;
    let service: ServiceUnderTest;
    let staging: FileStaging;
    let workspace: string;
    let otherWorkspace: string;

    const newWorkspace = async () =>
      (await cliJson<{ workspace_id: string }>(['workspace', 'create', '--name', `assets int ${randomUUID().slice(0, 8)}`])).workspace_id;
    async function stageUpload(bytes: Buffer): Promise<string> {
      const name = `upload/${randomUUID()}`;
      await staging.put(name, Readable.from([bytes]));
      return name;
    }
    async function store(workspaceId: string, bytes: Buffer, fields: Partial<StoreAssetRequest> = {}): Promise<AssetRecord> {
      const staged = await stageUpload(bytes);
      return service.send(AssetPatterns.storeAsset, {
        workspace_id: workspaceId,
        name: 'file.bin',
        staged_object: staged,
        size_bytes: bytes.length,
        ...fields,
      });
    }
    const setCap = (workspaceId: string, bytes: number | null) =>
      service.send(CatalogPatterns.setWorkspaceLimits, { workspace_id: workspaceId, asset_storage_bytes: bytes });

    beforeAll(async () => {
      driver = await makeDriver();
      service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error', ...driver.env });
      staging = new FileStaging(service.rpc);
      [workspace, otherWorkspace] = [await newWorkspace(), await newWorkspace()];
    });

    afterAll(async () => {
      await service?.stop();
      await driver?.stop();
    });

    it('stores a staged upload: type from the bytes over the declared one, SHA-256, size; the staged object is deleted', async () => {
      const staged = await stageUpload(PNG);
      const asset = await service.send(AssetPatterns.storeAsset, {
        workspace_id: workspace,
        name: 'pixel.txt',
        declared_content_type: 'text/plain',
        staged_object: staged,
        size_bytes: PNG.length,
      });
      expect(asset).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        name: 'pixel.txt',
        content_type: 'image/png',
        size_bytes: PNG.length,
        sha256: sha256(PNG),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect(await staging.open(staged)).toBeNull();
      expect(await driver.keys(workspace)).toContain(`${workspace}/${asset.id}`);
    });

    it('falls back to the declared type (parameters dropped), then to application/octet-stream', async () => {
      const text = Buffer.from('name,amount\nwidget,3\n');
      await expect(store(workspace, text, { declared_content_type: 'text/csv; charset=utf-8' })).resolves.toMatchObject({
        content_type: 'text/csv',
      });
      await expect(store(workspace, text)).resolves.toMatchObject({
        content_type: 'application/octet-stream',
        size_bytes: text.length,
        sha256: sha256(text),
      });
      // Text that starts like a binary format ("BM" is a BMP signature, "wide" at byte 4 a QuickTime atom) is text.
      for (const abstract of ['BMP-2 signalling drives bone formation.', 'The widespread regulation of microRNA biogenesis.']) {
        await expect(store(workspace, Buffer.from(abstract), { declared_content_type: 'text/plain' })).resolves.toMatchObject({
          content_type: 'text/plain',
        });
      }
      const empty = await store(workspace, Buffer.alloc(0), { declared_content_type: 'not a type' });
      expect(empty).toMatchObject({ content_type: 'application/octet-stream', size_bytes: 0, sha256: sha256(Buffer.alloc(0)) });
    });

    it('streams a file of several MiB through (many object-store chunks, several S3 parts)', async () => {
      const bytes = randomBytes(12 * 1024 * 1024 + 123);
      const asset = await store(workspace, bytes, { name: 'big.bin' });
      expect(asset).toMatchObject({ size_bytes: bytes.length, sha256: sha256(bytes) });
      const staged = await service.send(AssetPatterns.stageAsset, { workspace_id: workspace, asset_id: asset.id });
      expect(sha256(await readAll(await staging.open(staged.staged_object)))).toBe(sha256(bytes));
      await staging.remove(staged.staged_object);
    });

    it("lists the workspace's assets newest first, and only its own", async () => {
      const own = await newWorkspace();
      const first = await store(own, Buffer.from('first'));
      const second = await store(own, Buffer.from('second'));
      await store(otherWorkspace, Buffer.from('not yours'));
      const listed = await service.send(AssetPatterns.listAssets, { workspace_id: own });
      expect(listed.map((asset) => asset.id)).toEqual([second.id, first.id]);
      expect(listed[0]).toEqual(second);
      await expect(service.send(AssetPatterns.listAssets, { workspace_id: randomUUID() })).resolves.toEqual([]);
    });

    it("gets an asset of the workspace; another workspace's, an unknown or a non-UUID id is 422 Asset not found", async () => {
      const asset = await store(workspace, Buffer.from('hello'));
      await expect(service.send(AssetPatterns.getAsset, { workspace_id: workspace, asset_id: asset.id })).resolves.toEqual(asset);
      for (const [workspaceId, assetId] of [
        [otherWorkspace, asset.id],
        [workspace, randomUUID()],
        [workspace, 'not-a-uuid'],
      ]) {
        await expect(
          failure(service.send(AssetPatterns.getAsset, { workspace_id: workspaceId, asset_id: assetId })),
        ).resolves.toMatchObject(ASSET_NOT_FOUND);
        await expect(
          failure(service.send(AssetPatterns.stageAsset, { workspace_id: workspaceId, asset_id: assetId })),
        ).resolves.toMatchObject(ASSET_NOT_FOUND);
      }
    });

    it("stages an asset's bytes as asset/<uuid> for a reader", async () => {
      const bytes = Buffer.from('stage me, please');
      const asset = await store(workspace, bytes, { name: 'note.txt' });
      const staged = await service.send(AssetPatterns.stageAsset, { workspace_id: workspace, asset_id: asset.id });
      expect(staged).toEqual({ staged_object: expect.stringMatching(/^asset\/[0-9a-f-]{36}$/), asset });
      expect(await readAll(await staging.open(staged.staged_object))).toEqual(bytes);
      await staging.remove(staged.staged_object);
    });

    it('refuses a staged object that is missing or not of the declared size (422), deleting it, storing nothing', async () => {
      const own = await newWorkspace();
      await expect(
        failure(
          service.send(AssetPatterns.storeAsset, { workspace_id: own, name: 'x', staged_object: `upload/${randomUUID()}`, size_bytes: 1 }),
        ),
      ).resolves.toMatchObject({ code: 'validation_error', status: 422 });
      const staged = await stageUpload(Buffer.from('12345'));
      await expect(
        failure(service.send(AssetPatterns.storeAsset, { workspace_id: own, name: 'x', staged_object: staged, size_bytes: 4 })),
      ).resolves.toMatchObject({ code: 'validation_error', status: 422 });
      expect(await staging.open(staged)).toBeNull();
      await expect(
        failure(
          service.send(AssetPatterns.storeAsset, {
            workspace_id: own,
            name: 'x',
            staged_object: '../etc/passwd',
            size_bytes: 1,
          } as StoreAssetRequest),
        ),
      ).resolves.toMatchObject({ code: 'validation_error', status: 422 });
      expect(await service.send(AssetPatterns.listAssets, { workspace_id: own })).toEqual([]);
      expect(await driver.keys(own)).toEqual([]);
    });

    it("answers 402 asset_storage_limit_reached past the plan's storage, storing nothing and deleting the staged object", async () => {
      const own = await newWorkspace();
      await setCap(own, 1000);
      await store(own, randomBytes(600));
      const staged = await stageUpload(randomBytes(401));
      await expect(
        failure(service.send(AssetPatterns.storeAsset, { workspace_id: own, name: 'over', staged_object: staged, size_bytes: 401 })),
      ).resolves.toMatchObject(STORAGE_LIMIT);
      expect(await staging.open(staged)).toBeNull();
      await expect(store(own, randomBytes(400))).resolves.toMatchObject({ size_bytes: 400 });
      await expect(failure(store(own, randomBytes(1)))).resolves.toMatchObject(STORAGE_LIMIT);
      expect((await service.send(AssetPatterns.listAssets, { workspace_id: own })).map((asset) => asset.size_bytes)).toEqual([400, 600]);
      expect(await driver.keys(own)).toHaveLength(2);
      await setCap(own, null);
      await expect(store(own, randomBytes(2000))).resolves.toMatchObject({ size_bytes: 2000 });
    });

    it('never exceeds the cap under parallel uploads: exactly as many as fit are stored, the rest 402, no bytes left behind', async () => {
      const own = await newWorkspace();
      await setCap(own, 1000);
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => store(own, randomBytes(300))));
      const stored = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      expect(stored).toHaveLength(3);
      expect(refused).toHaveLength(5);
      for (const outcome of refused) expect(outcome.reason).toMatchObject(STORAGE_LIMIT);
      const listed = await service.send(AssetPatterns.listAssets, { workspace_id: own });
      expect(listed.reduce((sum, asset) => sum + asset.size_bytes, 0)).toBe(900);
      expect((await driver.keys(own)).sort()).toEqual(listed.map((asset) => `${own}/${asset.id}`).sort());
    });
  });
});
