import type { DomainCommand } from '../decider';
import type { AuditRecorded } from './audit-events';

/** Record a step's audit event. Repeating it for the same step records nothing more. */
export type RecordAudit = DomainCommand<'RecordAudit', Omit<AuditRecorded['data'], 'sequence' | 'recordedAt' | 'previousHash' | 'hash'>>;

/** Every command of an audit stream. */
export type AuditCommand = RecordAudit;
