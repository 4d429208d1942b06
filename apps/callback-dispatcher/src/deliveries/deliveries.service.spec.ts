import { nextRedeliveryJobId } from './deliveries.service';

describe('nextRedeliveryJobId', () => {
  const id = 'msg_0123456789abcdef0123456789abcdef';

  it('numbers redeliveries after the original job', () => {
    expect(nextRedeliveryJobId(id, id)).toBe(`${id}:redeliver:1`);
    expect(nextRedeliveryJobId(id, `${id}:redeliver:1`)).toBe(`${id}:redeliver:2`);
    expect(nextRedeliveryJobId(id, `${id}:redeliver:41`)).toBe(`${id}:redeliver:42`);
  });
});
