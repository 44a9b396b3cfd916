import { analyzeListing } from '../analysis/analyze.js';
import { AppError } from '../core/errors.js';
import type {
  AnalyzeRequest,
  AnalyzeResponse,
  JobList,
  JobRecord,
  RenderRequest,
  Service,
} from '../core/types.js';

export interface LocalServiceOptions {
  dataDir?: string;
}

function notYet(what: string): never {
  throw new AppError('INTERNAL_SERVER_ERROR', `${what} is not available in this version yet.`);
}

/** The engine in this process: analysis now; renders and the job store join it (issues 4, 5). */
export class LocalService implements Service {
  constructor(readonly options: LocalServiceOptions = {}) {}

  async analyze(request: AnalyzeRequest): Promise<AnalyzeResponse> {
    const property = await analyzeListing(request);
    return { ok: true, status: 'success', property };
  }

  async renderVideo(_request: RenderRequest): Promise<JobRecord> {
    return notYet('Rendering');
  }

  async getJob(_jobId: string): Promise<JobRecord> {
    return notYet('The job store');
  }

  async listJobs(): Promise<JobList> {
    return notYet('The job store');
  }

  async cancelJob(_jobId: string): Promise<JobRecord> {
    return notYet('The job store');
  }

  async waitForJob(_jobId: string): Promise<JobRecord> {
    return notYet('The job store');
  }

  async downloadVideo(_jobId: string, _destination: string): Promise<number> {
    return notYet('The job store');
  }

  async close(): Promise<void> {}
}
