import { principalFieldsOf } from '@agent-ledger/validation';

/**
 * Keeps the `principal` of a command's `fields` as a `PrincipalFields`, so
 * that it is checked with its own rules (`principal.kind`, `principal.id`,
 * unknown fields), read-only like the command's other fields. A value that is
 * not an object stays as `assignFields` set it, for the command's rule to
 * refuse.
 */
export function keepPrincipalField(command: object, fields: unknown): void {
  const principal = principalFieldsOf((fields as { principal?: unknown } | null)?.principal);
  if (typeof principal === 'object' && principal !== null) Object.defineProperty(command, 'principal', { value: principal, enumerable: true, writable: false, configurable: true });
}
