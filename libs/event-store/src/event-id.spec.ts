import { deterministicEventId } from './event-id';
import { isUuid } from './validation/validate-append';

describe('deterministicEventId', () => {
  it('gives the same UUIDv5 for the same name, and different ids for different names', () => {
    const a = deterministicEventId('run-1|0|RunRequested|{}');
    expect(deterministicEventId('run-1|0|RunRequested|{}')).toBe(a);
    expect(deterministicEventId('run-1|1|RunRequested|{}')).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(isUuid(a)).toBe(true);
  });

  it('does not collide over many names', () => {
    const ids = new Set(Array.from({ length: 10_000 }, (_, i) => deterministicEventId(`name-${i}`)));
    expect(ids.size).toBe(10_000);
  });
});
