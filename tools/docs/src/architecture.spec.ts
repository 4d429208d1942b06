import {
  CLAIM_BUCKETS,
  FILE_STAGING_BUCKET,
  LedgerStream,
  QueueNames,
  RUN_CANCEL_SUBJECT,
  WORKFLOW_RUN_FINISHED_SUBJECT,
} from '@waggle/contracts';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '../../..');
const architecture = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
const diagram = /```mermaid\n([\s\S]*?)```/.exec(architecture)?.[1] ?? '';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'test') return [];
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}
const code = [...sources(join(root, 'apps')), ...sources(join(root, 'libs'))].map((path) => ({
  path: relative(root, path),
  text: readFileSync(path, 'utf8'),
}));

describe('docs/architecture.md', () => {
  it('shows every BullMQ queue, in the table and in the diagram', () => {
    const queues = Object.values(QueueNames);
    expect(queues.filter((queue) => !architecture.includes(`| \`${queue}\``))).toEqual([]);
    expect(queues.filter((queue) => !diagram.includes(` ${queue} `))).toEqual([]);
  });

  it('shows the JetStream stream, its subject and its consumer, and every object store bucket', () => {
    const names = [
      LedgerStream.name,
      LedgerStream.subject,
      LedgerStream.consumer,
      FILE_STAGING_BUCKET,
      ...Object.values(CLAIM_BUCKETS).map(({ name }) => name),
    ];
    expect(names.filter((name) => !architecture.includes(`\`${name}\``))).toEqual([]);
    expect(diagram).toContain(LedgerStream.name);
    expect(diagram).toContain(FILE_STAGING_BUCKET);
  });

  it('shows every NATS broadcast subject the code declares', () => {
    const declared = code.flatMap(({ text }) => [...text.matchAll(/\b[A-Z_]*SUBJECT\s*=\s*'([^']+)'/g)].map(([, subject]) => subject));
    expect(declared).toEqual(expect.arrayContaining([RUN_CANCEL_SUBJECT, WORKFLOW_RUN_FINISHED_SUBJECT]));
    expect(declared.filter((subject) => !architecture.includes(`\`${subject}\``))).toEqual([]);
  });

  it('is told about a new stream or bucket: only these files create one', () => {
    // A file that creates a JetStream stream, object store or KV bucket makes a new one: add it to
    // docs/architecture.md (and its name to the checks above), then to this list.
    const creators = code.filter(({ text }) => /\.views\.(os|kv)\(|\.streams\.add\(/.test(text)).map(({ path }) => path);
    expect(creators.sort()).toEqual([
      'libs/platform/src/files/file-staging.ts',
      'libs/platform/src/nats/claim-check.ts',
      'libs/runs/src/ledger/ledger-stream.ts',
    ]);
  });
});
