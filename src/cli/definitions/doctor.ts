import { Command } from 'commander';
import { lazy } from './lazy.js';

export function doctorCommand(): Command {
  return new Command('doctor')
    .description(
      'Check that this machine can render videos (ffmpeg, encoders, fonts, music, templates), and the database and bucket when --database-url / --storage-url are set.',
    )
    .action(lazy(async () => (await import('../commands/doctor.js')).doctor));
}
