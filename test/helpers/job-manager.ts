import { JobManager, type JobManagerOptions } from '../../src/jobs/manager.js';
import { openEmbeddedJobStores } from '../../src/records/job-backends.js';

/**
 * A JobManager on the data directory's own stores (SQLite job table, video files), as the CLI
 * opens it, unless the test hands over records and blobs of its own; the stores it opened close
 * with the manager.
 */
export async function openJobManager(
  options: Omit<JobManagerOptions, 'records' | 'blobs'> & Partial<Pick<JobManagerOptions, 'records' | 'blobs'>>,
): Promise<JobManager> {
  if (options.records !== undefined && options.blobs !== undefined)
    return JobManager.open({ ...options, records: options.records, blobs: options.blobs });
  const stores = openEmbeddedJobStores(options.dataDir);
  try {
    return await JobManager.open({
      ...options,
      records: options.records ?? stores.records,
      blobs: options.blobs ?? stores.blobs,
      closeWith: async () => {
        await options.closeWith?.();
        await stores.close();
      },
    });
  } catch (error) {
    await stores.close();
    throw error;
  }
}
