import type { Infer } from './schema';
import { s } from './schema';

/** `GET /health`: liveness. */
export const healthReportSchema = s.object({ status: s.literal('ok') }).named('HealthReport').describe('Liveness: the process serves HTTP');

/** {@link healthReportSchema}'s type. */
export type HealthReport = Infer<typeof healthReportSchema>;
