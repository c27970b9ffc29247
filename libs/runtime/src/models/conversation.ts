import type { JsonObject, JsonValue } from '@agent-ledger/domain';

/**
 * One message of the conversation a model sees, in a provider-neutral shape.
 * The runtime rebuilds it from the run's events, so a retried run shows the
 * model exactly what it saw before.
 */
export type ConversationMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string }
  | {
      readonly role: 'assistant';
      readonly content: string | null;
      readonly toolCalls: readonly { readonly id: string; readonly toolName: string; readonly arguments: JsonObject }[];
    }
  | {
      readonly role: 'tool';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly content: JsonValue;
      readonly isError: boolean;
      /** Set when a person denied the call: it never executed, and `content` says so. */
      readonly denied?: true;
    };
