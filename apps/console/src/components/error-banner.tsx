import { AgentLedgerApiError } from '@agent-ledger/client';

/** An error as the person should read it: the service's code and message. */
export function ErrorBanner({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const text = error instanceof AgentLedgerApiError ? `${error.code}: ${error.apiMessage}` : error instanceof Error ? error.message : String(error);
  return (
    <div class="error" role="alert" data-testid="error">
      {text}
    </div>
  );
}
