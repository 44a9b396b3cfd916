import { Command } from 'commander';

export function templatesCommand(): Command {
  const templates = new Command('templates').description('List and inspect the video templates.');
  templates
    .command('list')
    .description('The templates shipped with immoreel.')
    .action(async (_flags: unknown, command: Command) => {
      const { listTemplatesCommand } = await import('../commands/templates.js');
      await listTemplatesCommand(_flags, command);
    });
  templates
    .command('show')
    .description('Everything a template defines (validated).')
    .argument('<name>', 'template name')
    .action(async (name: string, _flags: unknown, command: Command) => {
      const { showTemplate } = await import('../commands/templates.js');
      await showTemplate(name, _flags, command);
    });
  return templates;
}
