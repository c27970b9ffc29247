import { IsIn, ValidateBy } from 'class-validator';
import type { Principal } from '@agent-ledger/domain';
import { assignFields } from './validate-message';

/** The kinds of principal a bus caller may state (`unverified` is only read back from old events). */
export const STATED_PRINCIPAL_KINDS = ['bus', 'apiKey', 'development'] as const;

/**
 * Who sends a bus command that records a decision, as the host states it: a
 * required, typed field (`principal`), never a default. Its rules are the
 * domain's (`assertPrincipal`), with the HTTP API's field-level messages:
 * `principal.kind` one of `bus`, `apiKey`, `development`; `principal.id` 1 to
 * 200 characters, not blank, for `bus` and `apiKey`, absent for `development`;
 * any other field refused (`unknownField`).
 */
export class PrincipalFields {
  @IsIn(STATED_PRINCIPAL_KINDS, { message: '$property must be "bus", "apiKey" or "development"' })
  readonly kind!: (typeof STATED_PRINCIPAL_KINDS)[number];

  @ValidateBy({
    name: 'principalId',
    validator: {
      validate: (value: unknown, args) => {
        const kind = (args?.object as { kind?: unknown } | undefined)?.kind;
        if (kind === 'development') return value === undefined;
        return typeof value === 'string' && value.trim().length > 0 && value.length <= 200;
      },
      defaultMessage: (args) =>
        (args?.object as { kind?: unknown } | undefined)?.kind === 'development'
          ? `${args?.property ?? 'id'} must be absent for a development principal`
          : `${args?.property ?? 'id'} must be a non-empty string of at most 200 characters`,
    },
  })
  readonly id?: string;
}

/**
 * The value to keep in a command's `principal` field: an object becomes a
 * {@link PrincipalFields} (so that its own rules are checked, and unknown
 * fields refused); anything else is kept as it is, for the command's rule
 * to refuse.
 */
export function principalFieldsOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const fields = new PrincipalFields();
  // A class field declared without a value is an own property (undefined): only the caller's fields are kept.
  for (const key of Object.keys(fields)) delete (fields as unknown as Record<string, unknown>)[key];
  assignFields(fields, value);
  return fields;
}

/** A validated {@link PrincipalFields} as the domain's plain {@link Principal}. */
export function principalOf(fields: Principal | PrincipalFields): Principal {
  if (fields.kind === 'development') return { kind: 'development' };
  if (fields.kind === 'unverified') throw new Error('An unverified principal is never stated by a caller');
  return { kind: fields.kind, id: fields.id as string };
}

/** The message of a `principal` field that is missing or not an object. */
export const PRINCIPAL_MESSAGE =
  '$property must be the principal of the caller, as the host authenticated it: { kind: "bus", id } (or { kind: "apiKey", id }, { kind: "development" })';
