/** The base class of every error this client throws: `instanceof AgentLedgerError` catches them all. */
export class AgentLedgerError extends Error {
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
