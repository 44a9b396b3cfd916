/** A job's webhook delivery in the outbox (docs/api.md "Webhooks"), the same row in both backends. */
export type DeliveryState = 'waiting' | 'pending' | 'delivered' | 'failed' | 'disabled';

export interface DeliveryRow {
  job_id: string;
  tenant: string;
  url: string;
  message_id: string;
  state: DeliveryState;
  payload: string | null;
  attempts: number;
  next_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
}
