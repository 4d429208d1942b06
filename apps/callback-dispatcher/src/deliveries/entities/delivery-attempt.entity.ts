import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { DeliveryEntity } from './delivery.entity';

/** One HTTP attempt of a delivery (or one that could not be made: refused, owner missing). */
@Entity({ name: 'delivery_attempts' })
@Unique('UQ_delivery_attempts_delivery_attempt', ['deliveryId', 'attempt'])
export class DeliveryAttemptEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'delivery_id', type: 'text' })
  deliveryId!: string;

  @ManyToOne(() => DeliveryEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'delivery_id', foreignKeyConstraintName: 'FK_delivery_attempts_delivery_id' })
  delivery?: DeliveryEntity;

  /** 1-based over the delivery's whole life. */
  @Column({ type: 'integer' })
  attempt!: number;

  @Column({ name: 'attempted_at', type: 'timestamptz' })
  attemptedAt!: Date;

  /** null when no HTTP answer arrived. */
  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode!: number | null;

  @Column({ name: 'latency_ms', type: 'integer' })
  latencyMs!: number;

  @Column({ type: 'text', nullable: true })
  error!: string | null;
}
