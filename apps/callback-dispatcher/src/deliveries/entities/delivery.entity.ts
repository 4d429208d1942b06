import type { CallbackBody, CallbackEventType, DeliveryStatus, WebhookOwnerKind } from '@waggle/contracts';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One callback, from its first attempt to its end. It keeps the body so a redelivery
 * sends the same bytes again; never a secret or a signature (those are made per attempt).
 */
@Entity({ name: 'deliveries' })
@Index('IDX_deliveries_workspace_created_at', ['workspaceId', 'createdAt'])
export class DeliveryEntity {
  /** The delivery id (`msg_` + 32 hex), sent as `webhook-id` on every attempt. */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Index('IDX_deliveries_request_id')
  @Column({ name: 'request_id', type: 'text' })
  requestId!: string;

  @Column({ name: 'event_type', type: 'text' })
  eventType!: CallbackEventType;

  @Column({ type: 'text' })
  url!: string;

  @Column({ name: 'owner_kind', type: 'text' })
  ownerKind!: WebhookOwnerKind;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId!: string;

  /**
   * `json`, not `jsonb`: json keeps the text as written (jsonb reorders keys), so a
   * redelivery serializes back to exactly the bytes the first attempt sent.
   */
  @Column({ type: 'json' })
  body!: CallbackBody;

  @Column({ type: 'text' })
  status!: DeliveryStatus;

  /** Attempts over the delivery's whole life, redeliveries included. */
  @Column({ name: 'attempt_count', type: 'integer', default: 0 })
  attemptCount!: number;

  /**
   * The BullMQ job that owns the delivery now: a redelivery queues a new job (BullMQ
   * keeps finished job ids), and any older job still waiting finds it is no longer the
   * owner and sends nothing.
   */
  @Column({ name: 'job_id', type: 'text' })
  jobId!: string;

  /** Attempts made by the current job: a redelivery starts a fresh retry budget. */
  @Column({ name: 'job_attempt_count', type: 'integer', default: 0 })
  jobAttemptCount!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt!: Date | null;
}
