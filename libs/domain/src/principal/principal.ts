import { InvalidFieldError } from '../errors/invalid-field.error';

/**
 * Who made a recorded decision (a cancel, a requeue and its write resolution,
 * an approval or a denial, an input answer): the authenticated caller, never
 * a name taken from a request body. A caller's own words may be recorded
 * beside it, as a reason or a note, never as the actor.
 *
 * - `apiKey`: an HTTP (or CLI) caller, authenticated by the API key whose
 *   configured `id` this is.
 * - `development`: an HTTP caller while authentication is disabled (the
 *   development mode on a loopback address): nobody was authenticated.
 * - `bus`: a caller in the host process that sent the command over the
 *   CommandBus, with the identity the host states for it (the host is trusted
 *   to authenticate its own callers).
 * - `unverified`: only read from an event recorded before principals were
 *   typed (schema version 1): a free name that nobody checked.
 */
export type Principal =
  | { readonly kind: 'apiKey'; readonly id: string }
  | { readonly kind: 'development' }
  | { readonly kind: 'bus'; readonly id: string }
  | { readonly kind: 'unverified'; readonly name: string };

/** The kinds of {@link Principal}, as `as const` data. */
export const PRINCIPAL_KINDS = ['apiKey', 'development', 'bus', 'unverified'] as const;

/** The principal of an HTTP caller authenticated by the API key `id`. */
export function apiKeyPrincipal(id: string): Principal {
  return { kind: 'apiKey', id };
}

/** The principal of an HTTP caller while authentication is disabled. */
export const DEVELOPMENT_PRINCIPAL: Principal = Object.freeze({ kind: 'development' });

/** The principal of a bus caller, as its host identifies it. */
export function busPrincipal(id: string): Principal {
  return { kind: 'bus', id };
}

/**
 * One line for people and read models: `key:<id>`, `development`,
 * `bus:<id>`, `unverified:<name>`. Distinct kinds never give the same label.
 */
export function principalLabel(principal: Principal): string {
  switch (principal.kind) {
    case 'apiKey':
      return `key:${principal.id}`;
    case 'development':
      return 'development';
    case 'bus':
      return `bus:${principal.id}`;
    case 'unverified':
      return `unverified:${principal.name}`;
  }
}

/**
 * Checks that `value` is a {@link Principal} a caller may state now
 * (`unverified` is only ever read back from old events, never accepted).
 *
 * @throws InvalidFieldError naming `field` (and the sub-field) when it is not
 */
export function assertPrincipal(value: unknown, field: string): asserts value is Principal {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidFieldError(field, 'must be a principal: { kind: "apiKey" | "bus", id } or { kind: "development" }');
  }
  const { kind, id } = value as { kind?: unknown; id?: unknown };
  if (kind === 'development') {
    if (Object.keys(value).length !== 1) throw new InvalidFieldError(field, 'a development principal has no other field than kind');
    return;
  }
  if (kind !== 'apiKey' && kind !== 'bus') {
    throw new InvalidFieldError(`${field}.kind`, 'must be "apiKey", "bus" or "development"');
  }
  if (typeof id !== 'string' || id.trim().length === 0 || id.length > 200) {
    throw new InvalidFieldError(`${field}.id`, 'must be a non-empty string of at most 200 characters');
  }
  if (Object.keys(value).length !== 2) throw new InvalidFieldError(field, 'has fields other than kind and id');
}

/**
 * Checks that `value` is a {@link Principal} as a recorded event may hold it:
 * one a caller may state now, or an `unverified` name upcast from a version 1
 * event. For what is derived from the record (a decision's statement in the
 * audit chain), never for what a caller sends.
 *
 * @throws InvalidFieldError naming `field` (and the sub-field) when it is not
 */
export function assertRecordedPrincipal(value: unknown, field: string): asserts value is Principal {
  if (typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'unverified') {
    const { name } = value as { name?: unknown };
    if (typeof name !== 'string') throw new InvalidFieldError(`${field}.name`, 'must be a string');
    if (Object.keys(value).length !== 2) throw new InvalidFieldError(field, 'has fields other than kind and name');
    return;
  }
  assertPrincipal(value, field);
}
