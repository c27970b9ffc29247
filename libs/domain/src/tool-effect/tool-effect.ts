/**
 * What a tool's call does to the world. Declared in code by the tool itself
 * (see {@link DeclaresToolEffect}); no configuration, request or administrator
 * can relabel it.
 */
export const ToolEffect = {
  /** Observes only; safe to repeat; its audit is fail-soft. */
  READ_ONLY: 'READ_ONLY',
  /** Changes the world, but repeating it with the same idempotency key changes nothing more. */
  IDEMPOTENT_WRITE: 'IDEMPOTENT_WRITE',
  /** Changes the world each time it runs: it must run at most once per step. */
  NON_IDEMPOTENT_WRITE: 'NON_IDEMPOTENT_WRITE',
} as const;

/** One of the three {@link ToolEffect} values. */
export type ToolEffect = (typeof ToolEffect)[keyof typeof ToolEffect];

/** Every effect, in order of increasing hazard. */
export const TOOL_EFFECTS: readonly ToolEffect[] = Object.freeze(Object.values(ToolEffect));

/** Whether `value` is one of the three effects. */
export function isToolEffect(value: unknown): value is ToolEffect {
  return typeof value === 'string' && (TOOL_EFFECTS as readonly string[]).includes(value);
}

/** Whether the effect changes the world: its audit is fail-closed and its execution is fenced. */
export function isWrite(effect: ToolEffect): boolean {
  return effect !== ToolEffect.READ_ONLY;
}

/** Whether a call with this effect may run again after an interruption (with the same idempotency key). */
export function isSafeToRetry(effect: ToolEffect): boolean {
  return effect !== ToolEffect.NON_IDEMPOTENT_WRITE;
}
