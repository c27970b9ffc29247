import type { FactoryProvider } from '@nestjs/common';
import type { EventStore } from '@agent-ledger/event-store';
import { AUDIT_EVENT_STORE, AuditStoreReviewer, RUN_EVENT_STORE } from '@agent-ledger/runtime';

/** The service's one {@link AuditStoreReviewer}: its verified checkpoint lives as long as the process. */
export const auditStoreReviewerProvider: FactoryProvider<AuditStoreReviewer> = {
  provide: AuditStoreReviewer,
  useFactory: (runStore: EventStore, auditStore: EventStore) => new AuditStoreReviewer({ runStore, auditStore }),
  inject: [RUN_EVENT_STORE, AUDIT_EVENT_STORE],
};
