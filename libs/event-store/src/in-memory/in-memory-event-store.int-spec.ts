import { describeEventStoreContract } from '../testing/event-store-contract';
import { InMemoryEventStore } from './in-memory-event-store';

describeEventStoreContract('InMemoryEventStore', { create: () => new InMemoryEventStore() });
