import { Command } from 'commander';

export function doctorCommand(): Command {
  return new Command('doctor')
    .description('Check that this machine can render videos (ffmpeg, encoders, fonts, music, templates).')
    .action(async (flags: unknown, command: Command) => {
      const { doctor } = await import('../commands/doctor.js');
      await doctor(flags, command);
    });
}
