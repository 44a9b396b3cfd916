/** Quotas are records (src/store/quota.ts); the server reads them through the RecordStore. */
export { periodOf, periodResetAt, type BillableRoute, type QuotaState, type Reservation, type UsageRow } from '../store/quota.js';
