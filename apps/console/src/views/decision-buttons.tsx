import { useState } from 'preact/hooks';
import { useSession } from '../auth/session';
import { ErrorBanner } from '../components/error-banner';

/**
 * Approve / deny the request a run waits on (`POST /runs/{runId}/approval`,
 * for the round the person saw). The decider is the signed-in key.
 */
export function DecisionButtons({ runId, round, testIds, onDecided }: { runId: string; round: number; testIds: { approve: string; deny: string }; onDecided: () => void }) {
  const { client } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const decide = async (decision: 'approve' | 'deny') => {
    setBusy(true);
    setError(null);
    try {
      await client.decideApproval(runId, { decision, round });
      onDecided();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="decision">
      <button type="button" class="good" data-testid={testIds.approve} disabled={busy} onClick={() => decide('approve')}>
        Approve
      </button>
      <button type="button" class="bad" data-testid={testIds.deny} disabled={busy} onClick={() => decide('deny')}>
        Deny
      </button>
      <ErrorBanner error={error} />
    </span>
  );
}
