import type { AnalyzeRequest, RenderRequest } from './requests.js';
import type { AnalyzeResponse, JobList, JobRecord, ListJobsOptions, VideoFormat, WaitOptions } from './types.js';

/** Which output of a job (docs/api.md "Video packs"): one of its `formats`; default the primary. */
export interface OutputChoice {
  format?: VideoFormat;
}

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
  /** Copies the verified video (of the output `choice` names) to `destination`; returns the bytes written. */
  downloadVideo(jobId: string, destination: string, choice?: OutputChoice): Promise<number>;
  /** Copies a video's poster (a JPEG of its title card, docs/api.md "The poster") to `destination`; returns the bytes written. */
  downloadPoster(jobId: string, destination: string, choice?: OutputChoice): Promise<number>;
  close(): Promise<void>;
}
