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

  it('keeps the ids already stored: the same UUID for the same name as every earlier version (non-ASCII and long names too)', () => {
    expect(deterministicEventId('run-1|0|RunRequested|{}')).toBe('34023d7f-05a0-596a-83aa-c10b0380bc46');
    expect(deterministicEventId('audit-é|3|AuditRecorded|{"note":"ünïcödé ✓ 🚀"}')).toBe('3c3e16a6-ad6b-516a-b1cc-afadd1437d94');
    // Longer than the reused input buffer, then a short one again: nothing of the long name is left in the input.
    expect(deterministicEventId('x'.repeat(10_000))).toBe('13737100-0509-5a33-a47e-f2d92610a7b8');
    expect(deterministicEventId('run-1|0|RunRequested|{}')).toBe('34023d7f-05a0-596a-83aa-c10b0380bc46');
  });

  it('does not collide over many names', () => {
    const ids = new Set(Array.from({ length: 10_000 }, (_, i) => deterministicEventId(`name-${i}`)));
    expect(ids.size).toBe(10_000);
  });
});
