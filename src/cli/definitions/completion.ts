import { Argument, Command } from 'commander';
import { lazy } from './lazy.js';

export function completionCommand(): Command {
  return new Command('completion')
    .description('Print a shell completion script (bash, zsh or fish).')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      '\nExamples:\n  $ eval "$(immoreel completion bash)"      # in ~/.bashrc\n  $ eval "$(immoreel completion zsh)"       # in ~/.zshrc\n  $ immoreel completion fish > ~/.config/fish/completions/immoreel.fish',
    )
    .action(lazy(async () => (await import('../commands/completion.js')).completion));
}
