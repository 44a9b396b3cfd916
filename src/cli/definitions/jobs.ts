import { Command, Option } from 'commander';
import { lazy } from './lazy.js';
import { JOB_STATES, VIDEO_FORMATS } from '../../core/types.js';
import { MAX_LIST_LIMIT } from '../../core/job-limits.js';

const EXAMPLES = `
Examples:
  $ immoreel jobs list --state running
  $ immoreel jobs show job_01jd9x3m6k8b2q4r5s7t9v0w1y
  $ immoreel jobs wait job_01jd9x3m6k8b2q4r5s7t9v0w1y && immoreel jobs download job_01jd9x3m6k8b2q4r5s7t9v0w1y --out villa.mp4
  $ immoreel jobs download job_01jd9x3m6k8b2q4r5s7t9v0w1y --format all --poster --out villa.mp4   # a pack: villa-<format>.mp4
  $ immoreel jobs cancel job_01jd9x3m6k8b2q4r5s7t9v0w1y
  $ immoreel jobs purge --older-than 30d`;

export function jobsCommand(): Command {
  const jobs = new Command('jobs').description('Follow, cancel and download render jobs.').addHelpText('after', EXAMPLES);

  jobs
    .command('list')
    .description('List jobs, newest first.')
    .addOption(new Option('--state <state>', 'only jobs in this state').choices([...JOB_STATES]))
    .option('--limit <n>', `at most N jobs (1–${MAX_LIST_LIMIT})`, '20')
    .option('--cursor <cursor>', 'the next page: the next_cursor of the previous one')
    .action(lazy(async () => (await import('../commands/jobs.js')).listJobs));

  jobs
    .command('show')
    .description('Show one job.')
    .argument('<job_id>')
    .action(lazy(async () => (await import('../commands/jobs.js')).showJob));

  jobs
    .command('wait')
    .description('Wait for a job to finish (renders it here if nothing else is). Exit 7 if it failed.')
    .argument('<job_id>')
    .option('--timeout <seconds>', 'give up after this many seconds (exit 6)')
    .action(lazy(async () => (await import('../commands/jobs.js')).waitJob));

  jobs
    .command('cancel')
    .description('Cancel a queued or running job (a finished job is left as it is).')
    .argument('<job_id>')
    .action(lazy(async () => (await import('../commands/jobs.js')).cancelJob));

  jobs
    .command('download')
    .description('Copy the verified video of a succeeded job.')
    .argument('<job_id>')
    .option('--out <file>', 'where to write the MP4 (a directory: DIR/JOB_ID.mp4)', '.')
    .option('--force', 'overwrite the file if it exists')
    .addOption(
      new Option(
        '--format <format>',
        "which video of a pack: one of the job's formats, or all (files <file>-<format>.mp4); default the first",
      ).choices([...VIDEO_FORMATS, 'all']),
    )
    .option('--poster', "also write each video's poster, a JPEG of its title card, next to it (<file>-poster.jpg)")
    .action(lazy(async () => (await import('../commands/jobs.js')).downloadJob));

  jobs
    .command('purge')
    .description(
      'Delete the videos and work files of finished jobs (records stay, marked expired), in the store this machine is configured with: the data directory, or the database and bucket of --database-url/--storage-url (of every tenant). Prints the store first.',
    )
    .option('--older-than <age>', 'jobs finished more than this long ago (e.g. 30d, 12h, 0s for all)', '30d')
    .option('--dry-run', 'say what would be deleted, delete nothing')
    .option('-y, --yes', 'do not ask for confirmation on a terminal')
    .action(lazy(async () => (await import('../commands/jobs.js')).purgeJobs));

  // Subcommands were made before the program's exitOverride: usage errors must reach main() too.
  for (const sub of jobs.commands) sub.exitOverride().showHelpAfterError('(run with --help for usage)');
  return jobs;
}
