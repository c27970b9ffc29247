import type { RunStatus, ToolEffect } from '@agent-ledger/client';

/** A tool's declared side effect, coloured by risk. */
export function EffectBadge({ effect }: { effect: ToolEffect | null }) {
  if (effect === null) return null;
  return (
    <span class={`badge effect-${effect.toLowerCase().replace(/_/g, '-')}`} data-testid="effect-badge">
      {effect}
    </span>
  );
}

/** A run's status. */
export function StatusBadge({ status }: { status: RunStatus | string }) {
  return <span class={`badge status-${status.toLowerCase().replace(/_/g, '-')}`}>{status}</span>;
}
