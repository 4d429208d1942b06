import { LedgerStream } from '@waggle/contracts';
import { DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from 'nats';

/** How the ledger stream is kept: until the owner has written a record, then dropped. */
export interface LedgerStreamSettings {
  /** Copies in a NATS cluster (1 on a single server). */
  replicas: number;
  /** Upper bound of records waiting for the owner; publishers are refused past it (and retry). */
  maxBytes: number;
}

export const DEFAULT_LEDGER_STREAM_SETTINGS: LedgerStreamSettings = { replicas: 1, maxBytes: 1024 ** 3 };

function streamConfig(settings: LedgerStreamSettings): Partial<StreamConfig> & { name: string } {
  return {
    name: LedgerStream.name,
    subjects: [LedgerStream.subject],
    description: 'Run records for the request ledger, kept until its owner has written them',
    // Work-queue retention: a batch is removed once the owner's consumer acknowledges it,
    // that is once it is committed to the ledger table.
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    num_replicas: settings.replicas,
    max_bytes: settings.maxBytes,
    // Past the bound, new batches are refused rather than old unwritten ones dropped.
    discard: DiscardPolicy.New,
  };
}

function isStreamNotFound(error: unknown): boolean {
  return error instanceof Error && /stream not found/i.test(error.message);
}

/**
 * Creates the stream when it is missing. Only the owner (`update: true`) changes an existing
 * stream's settings, so publishers with other settings never fight over it.
 */
export async function ensureLedgerStream(
  jsm: JetStreamManager,
  settings: LedgerStreamSettings,
  options: { update: boolean },
): Promise<void> {
  const config = streamConfig(settings);
  try {
    const info = await jsm.streams.info(LedgerStream.name);
    if (options.update && (info.config.num_replicas !== settings.replicas || info.config.max_bytes !== settings.maxBytes)) {
      await jsm.streams.update(LedgerStream.name, { ...info.config, num_replicas: settings.replicas, max_bytes: settings.maxBytes });
    }
  } catch (error) {
    if (!isStreamNotFound(error)) throw error;
    await jsm.streams.add(config);
  }
}
