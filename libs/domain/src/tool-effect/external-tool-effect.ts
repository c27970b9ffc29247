import { ToolEffect } from './tool-effect';

/**
 * The effect hints an external tool's server gives about it (MCP's tool
 * annotations `readOnlyHint`, `idempotentHint`, `destructiveHint`). Each is
 * optional; an absent hint takes the MCP specification's default
 * (`readOnlyHint` false, `idempotentHint` false, `destructiveHint` true).
 */
export interface ToolEffectHints {
  readonly readOnlyHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly destructiveHint?: boolean;
}

/** Where an external tool's effect came from: its binding's declaration, its server's hints, or the safe default. */
export type ExternalToolEffectSource = 'declared' | 'hint' | 'default';

/** An external tool's effect, resolved from its binding's declaration and its server's hints. */
export interface ExternalToolEffect {
  /** The effect the tool runs with. */
  readonly effect: ToolEffect;
  /** Where {@link ExternalToolEffect.effect} came from. */
  readonly source: ExternalToolEffectSource;
  /** What the binding declared; `null` when it declared nothing. */
  readonly declared: ToolEffect | null;
  /** The effect the server's hints give; `null` when the server gave no effect hint. */
  readonly hinted: ToolEffect | null;
  /** Whether the binding trusts the server's hints. */
  readonly trusted: boolean;
  /** Whether a declaration and the hints disagree (logged, and recorded with each of the tool's steps). */
  readonly conflict: boolean;
}

const STRICTNESS: Readonly<Record<ToolEffect, number>> = {
  READ_ONLY: 0,
  IDEMPOTENT_WRITE: 1,
  NON_IDEMPOTENT_WRITE: 2,
};

/** The stricter of two effects: `READ_ONLY` < `IDEMPOTENT_WRITE` < `NON_IDEMPOTENT_WRITE`. */
export function stricterEffect(a: ToolEffect, b: ToolEffect): ToolEffect {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}

/**
 * The effect a server's hints give: `READ_ONLY` when `readOnlyHint` is true;
 * otherwise `IDEMPOTENT_WRITE` when `idempotentHint` is true, else
 * `NON_IDEMPOTENT_WRITE`. `null` when none of the three hints is given (no
 * annotations, or only `title` / `openWorldHint`). `destructiveHint` does not
 * change the class.
 */
export function hintedEffect(hints: ToolEffectHints | undefined): ToolEffect | null {
  if (hints === undefined) return null;
  const { readOnlyHint, idempotentHint, destructiveHint } = hints;
  if (readOnlyHint === undefined && idempotentHint === undefined && destructiveHint === undefined) return null;
  if (readOnlyHint === true) return ToolEffect.READ_ONLY;
  return idempotentHint === true ? ToolEffect.IDEMPOTENT_WRITE : ToolEffect.NON_IDEMPOTENT_WRITE;
}

/**
 * The effect of a tool whose code is neither the product's nor a plugin's (a
 * tool of an MCP server). It is declared where the server is bound; where
 * nothing declares it, it is `NON_IDEMPOTENT_WRITE`, the same safe default as
 * an unknown name. The server's hints are untrusted: they may only make a
 * declared effect stricter, unless the binding trusts the server, in which
 * case the hints decide. A declaration and hints that disagree are a conflict.
 *
 * | declared | hinted | untrusted (default) | trusted |
 * | --- | --- | --- | --- |
 * | D | none | D | D |
 * | D | H | stricter(D, H), conflict if D ≠ H | H, conflict if D ≠ H |
 * | none | none | NON_IDEMPOTENT_WRITE | NON_IDEMPOTENT_WRITE |
 * | none | H | NON_IDEMPOTENT_WRITE | H |
 */
export function resolveExternalToolEffect(
  declared: ToolEffect | undefined,
  hints: ToolEffectHints | undefined,
  trusted: boolean,
): ExternalToolEffect {
  const hinted = hintedEffect(hints);
  const base = { declared: declared ?? null, hinted, trusted };
  if (declared === undefined) {
    if (trusted && hinted !== null) return { ...base, effect: hinted, source: 'hint', conflict: false };
    return { ...base, effect: ToolEffect.NON_IDEMPOTENT_WRITE, source: 'default', conflict: false };
  }
  if (hinted === null || hinted === declared) return { ...base, effect: declared, source: 'declared', conflict: false };
  if (trusted) return { ...base, effect: hinted, source: 'hint', conflict: true };
  const effect = stricterEffect(declared, hinted);
  return { ...base, effect, source: effect === declared ? 'declared' : 'hint', conflict: true };
}
