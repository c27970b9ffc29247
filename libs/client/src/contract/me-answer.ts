import type { Infer } from './schema';
import { s } from './schema';
import { API_SCOPES, AUTH_MODES } from './vocabulary';

/** `GET /me`: what the caller's API key may do. */
export const meAnswerSchema = s
  .object({
    keyId: s.nullable(s.string()).describe("The key's id; null in the development mode"),
    scopes: s.array(s.enum(API_SCOPES)).describe("The key's scopes (every scope in the development mode)"),
    agents: s.nullable(s.array(s.string())).describe('The agents whose runs it may start and read; null: every agent'),
    authMode: s.enum(AUTH_MODES),
  })
  .named('MeAnswer')
  .describe("What the caller's API key may do");

/** {@link meAnswerSchema}'s type. */
export type MeAnswer = Infer<typeof meAnswerSchema>;
