/**
 * The `reason` of a failed job's error (docs/api.md "Monthly quota", docs/scaling.md "Fairness"):
 * the job row keeps the error's code and message, and a reason is known from both, so a job that
 * ran out of its fetch budget says `fetch_budget_exceeded` like every other refusal says its own.
 */

/** How the message of a job that ran out of its fetch budget begins (src/jobs/fetch-stage.ts writes it). */
export const FETCH_BUDGET_MESSAGE_START = "Fetching this job's listing and photos took longer than its ";

export function jobErrorReason(code: string, message: string): string | undefined {
  if (code === 'UPSTREAM_ERROR' && message.startsWith(FETCH_BUDGET_MESSAGE_START)) return 'fetch_budget_exceeded';
  return undefined;
}
