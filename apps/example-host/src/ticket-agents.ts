import type { AgentDefinition } from '@agent-ledger/runtime';

/** The name of the example's agent. */
export const TICKET_CLOSER = 'ticket-closer';

/**
 * The example's agent: a scripted model (no network) that closes ticket T-1
 * with `tickets.close`, then answers. A real host would point `provider` at
 * an OpenAI-compatible server, or load its agents with `loadAgentsConfig`.
 */
export const TICKET_AGENTS: readonly AgentDefinition[] = [
  {
    name: TICKET_CLOSER,
    description: 'Closes a ticket with a note.',
    instructions: 'Close the ticket you are given with a short note, then say so.',
    tools: ['tickets.close'],
    // Closing a ticket is a write: pre-approved here (an operator's decision, recorded as ToolCallPreApproved
    // in the run), so the example runs through. Without it the run would wait for a person's approval.
    approvals: { preApproved: ['tickets.close'], onDenial: 'endRun' },
    maxIterations: 3,
    provider: {
      type: 'scripted',
      script: [{ toolCalls: [{ tool: 'tickets.close', arguments: { ticketId: 'T-1', note: 'Fixed in 1.2.0.' } }] }, { final: 'Ticket T-1 is closed.' }],
    },
  },
];
