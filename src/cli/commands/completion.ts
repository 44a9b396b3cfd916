import type { Command } from 'commander';
import { badRequest } from '../../core/errors.js';

/*
 * `immoreel completion bash|zsh|fish`: a completion script made from the commander tree itself,
 * so it always knows every command and option (docs/cli.md, "Shell completion").
 */

interface Node {
  path: string[];
  subcommands: string[];
  options: string[];
}

function nodes(command: Command, path: string[] = []): Node[] {
  const options = command.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => f !== undefined);
  const here: Node = { path, subcommands: command.commands.map((c) => c.name()), options };
  return [here, ...command.commands.flatMap((c) => nodes(c, [...path, c.name()]))];
}

function bashScript(tree: Node[]): string {
  const global = tree[0]!.options;
  const cases = tree
    .map((n) => `    "${n.path.join(' ')}") words="${[...n.subcommands, ...n.options, ...(n.path.length > 0 ? global : [])].join(' ')}" ;;`)
    .join('\n');
  const known = `|${tree
    .map((n) => n.path.join(' '))
    .filter((p) => p !== '')
    .join('|')}|`;
  return `# immoreel completion for bash: eval "$(immoreel completion bash)" in ~/.bashrc
_immoreel() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" candidate words w
  local known="${known}"
  for w in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$w" in -*) continue ;; esac
    if [ -z "$path" ]; then candidate="$w"; else candidate="$path $w"; fi
    case "$known" in *"|$candidate|"*) path="$candidate" ;; esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F _immoreel immoreel
`;
}

function fishScript(tree: Node[]): string {
  const lines = [
    '# immoreel completion for fish: immoreel completion fish > ~/.config/fish/completions/immoreel.fish',
    'complete -c immoreel -f',
  ];
  for (const node of tree) {
    const condition = node.path.length === 0 ? '__fish_use_subcommand' : `__fish_seen_subcommand_from ${node.path[node.path.length - 1]}`;
    for (const sub of node.subcommands) lines.push(`complete -c immoreel -n '${condition}' -a ${sub}`);
    for (const option of node.options.filter((o) => o.startsWith('--')))
      lines.push(`complete -c immoreel -n '${condition}' -l ${option.slice(2)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `completion SHELL`: prints the script on stdout. */
export async function completion(shell: string, _flags: unknown, command: Command): Promise<void> {
  // The program itself, as commander built it: no second copy of the tree to keep in step.
  const tree = nodes(command.parent ?? command);
  if (shell === 'bash') process.stdout.write(bashScript(tree));
  else if (shell === 'zsh')
    process.stdout.write(
      `# immoreel completion for zsh: eval "$(immoreel completion zsh)" in ~/.zshrc\nautoload -U +X bashcompinit && bashcompinit\n${bashScript(tree)}`,
    );
  else if (shell === 'fish') process.stdout.write(fishScript(tree));
  else throw badRequest(`No completion for ${JSON.stringify(shell)}: choose bash, zsh or fish.`);
}
