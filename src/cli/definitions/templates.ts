import { Command } from 'commander';
import { lazy } from './lazy.js';

export function templatesCommand(): Command {
  const templates = new Command('templates').description('List and inspect the video templates.');
  templates
    .command('list')
    .description('The templates shipped with immoreel.')
    .action(lazy(async () => (await import('../commands/templates.js')).listTemplatesCommand));
  templates
    .command('show')
    .description('Everything a template defines (validated).')
    .argument('<name>', 'template name')
    .action(lazy(async () => (await import('../commands/templates.js')).showTemplate));
  return templates;
}
