import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { DeliveryEntity } from './delivery.entity';

export { DeliveryAttemptEntity, DeliveryEntity };

export const DELIVERY_ENTITIES = [DeliveryEntity, DeliveryAttemptEntity];
