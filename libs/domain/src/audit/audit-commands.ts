import type { DomainCommand } from '../decider';
import type { ApprovalDecisionRecorded, AuditRecorded, WriteResolutionRecorded } from './audit-events';

/** Record a step's audit event. Repeating it for the same step records nothing more. */
export type RecordAudit = DomainCommand<'RecordAudit', Omit<AuditRecorded['data'], 'sequence' | 'recordedAt' | 'previousHash' | 'hash'>>;

/** Record an operator's statement about a write that was in flight. */
export type RecordWriteResolution = DomainCommand<
  'RecordWriteResolution',
  Omit<WriteResolutionRecorded['data'], 'sequence' | 'recordedAt' | 'previousHash' | 'hash'>
>;

/** Record a person's decision on calls waiting for approval. */
export type RecordApprovalDecision = DomainCommand<
  'RecordApprovalDecision',
  Omit<ApprovalDecisionRecorded['data'], 'sequence' | 'recordedAt' | 'previousHash' | 'hash'>
>;

/** Every command of an audit stream. */
export type AuditCommand = RecordAudit | RecordWriteResolution | RecordApprovalDecision;
