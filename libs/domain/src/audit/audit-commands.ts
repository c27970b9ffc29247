import type { DomainCommand } from '../decider';
import type { ApprovalDecisionRecorded, AuditRecorded, InputAnswerRecorded, RunStartRecorded, WriteResolutionRecorded } from './audit-events';

/** Record a step's audit event. Repeating it for the same step records nothing more. */
export type RecordAudit = DomainCommand<'RecordAudit', Omit<AuditRecorded['data'], 'sequence' | 'recordedAt' | 'previousHash' | 'hash'>>;

/** Record an operator's statement about a write that was in flight. Repeating the same statement records nothing more; a different one for the same step and continuation is refused. */
export type RecordWriteResolution = DomainCommand<
  'RecordWriteResolution',
  Omit<WriteResolutionRecorded['data'], 'sequence' | 'recordedAt' | 'previousHash' | 'hash'>
>;

/** Record a person's decision on calls waiting for approval. Repeating the same statement records nothing more; a different one for the same round is refused. */
export type RecordApprovalDecision = DomainCommand<
  'RecordApprovalDecision',
  Omit<ApprovalDecisionRecorded['data'], 'sequence' | 'recordedAt' | 'previousHash' | 'hash'>
>;

/** Record a person's answer to a tool that asked for input. */
export type RecordInputAnswer = DomainCommand<'RecordInputAnswer', Omit<InputAnswerRecorded['data'], 'sequence' | 'recordedAt' | 'previousHash' | 'hash'>>;

/** Record who started the run. Repeating the same statement records nothing more; a different one is refused. */
export type RecordRunStart = DomainCommand<'RecordRunStart', Omit<RunStartRecorded['data'], 'sequence' | 'recordedAt' | 'previousHash' | 'hash'>>;

/** Every command of an audit stream. */
export type AuditCommand = RecordAudit | RecordWriteResolution | RecordApprovalDecision | RecordInputAnswer | RecordRunStart;
