import type { AnalyzeRequest, RenderRequest } from './requests.js';
import type { AnalyzeResponse, JobList, JobRecord, ListJobsOptions, WaitOptions } from './types.js';

/**
 * The one interface the CLI talks to (docs/architecture.md). Implemented locally (engine + job store) and
 * remotely (HTTP client), so every command behaves and prints the same in both modes.
 */
export interface Service {
  analyze(request: AnalyzeRequest): Promise<AnalyzeResponse>;
  renderVideo(request: RenderRequest, options?: { idempotencyKey?: string }): Promise<JobRecord>;
  getJob(jobId: string): Promise<JobRecord>;
  listJobs(options?: ListJobsOptions): Promise<JobList>;
  cancelJob(jobId: string): Promise<JobRecord>;
  waitForJob(jobId: string, options?: WaitOptions): Promise<JobRecord>;
  /** Copies the verified video to `destination`; returns the bytes written. */
  downloadVideo(jobId: string, destination: string): Promise<number>;
  /** Copies the video's poster (a JPEG of its title card, docs/api.md "The poster") to `destination`; returns the bytes written. */
  downloadPoster(jobId: string, destination: string): Promise<number>;
  close(): Promise<void>;
}
