import type { Command } from 'commander';
import type { Environment } from '../config/environment.js';

/**
 * The environment each program was started with: handed over by the CLI's main (./run.ts), read
 * into the configuration by each command (./context.ts). Its own module so that `--help` loads
 * nothing more than commander.
 */
const environments = new WeakMap<Command, Environment>();

export function bindEnvironment(program: Command, env: Environment): void {
  environments.set(program, env);
}

/** The environment of the program `command` belongs to, or null when none was bound. */
export function environmentOf(command: Command): Environment | null {
  let root = command;
  while (root.parent !== null) root = root.parent;
  return environments.get(root) ?? null;
}
