import type { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';
import { main } from '../../../src/cli/run.js';
import { loadConfig } from '../../../src/config/index.js';
import { ERROR_CODES } from '../../../src/core/errors.js';

/*
 * The commander wiring as a table: every command, its options, and the exit codes commander's own
 * checks lead to — checked in this process, without spawning the CLI.
 */

const GLOBAL_OPTIONS = [
  '--version',
  '--json',
  '--quiet',
  '--no-color',
  '--profile',
  '--base-url',
  '--data-dir',
  '--database-url',
  '--storage-url',
  '--insecure',
];

const COMMANDS: Record<string, string[]> = {
  analyze: [
    '--url',
    '--html-file',
    '--description',
    '--description-file',
    '--confirm',
    '--language',
    '--audience',
    '--demo',
    '--csv',
    '--out',
    '--concurrency',
    '--explain',
  ],
  render: [
    '--url',
    '--html-file',
    '--description',
    '--description-file',
    '--confirm',
    '--listing-json',
    '--photos',
    '--photos-dir',
    '--template',
    '--format',
    '--formats',
    '--duration',
    '--language',
    '--audience',
    '--music',
    '--agency',
    '--agent',
    '--phone',
    '--email',
    '--logo',
    '--color',
    '--unbranded',
    '--out',
    '--force',
    '--poster',
    '--no-wait',
    '--demo',
    '--csv',
    '--out-dir',
    '--resume',
    '--concurrency',
  ],
  'templates list': [],
  'templates show': [],
  doctor: [],
  serve: [
    '--host',
    '--port',
    '--concurrency',
    '--analyze-rate',
    '--render-rate',
    '--job-read-rate',
    '--preview-concurrency',
    '--max-queued',
    '--cors-origin',
    '--metrics-port',
    '--metrics-host',
    '--startup-wait',
    '--trust-proxy',
    '--public-host',
    '--drain-ms',
    '--log-level',
    '--rate-window-ms',
    '--allow-loopback-fetch',
  ],
  'keys create': ['--tenant', '--preview', '--scopes', '--monthly-quota'],
  'keys list': [],
  'keys revoke': [],
  'keys sessions': ['--tenant'],
  'keys revoke-session': [],
  'jobs list': ['--state', '--limit', '--cursor'],
  'jobs show': [],
  'jobs wait': ['--timeout'],
  'jobs cancel': [],
  'jobs download': ['--out', '--force', '--format', '--poster'],
  'jobs purge': ['--older-than', '--dry-run', '--yes'],
  worker: ['--until-idle', '--concurrency', '--metrics-port', '--metrics-host', '--startup-wait', '--log-level', '--allow-loopback-fetch'],
  'auth login': ['--api-key-stdin', '--api-key'],
  'auth status': [],
  'auth logout': ['--all'],
  completion: [],
  studio: ['--port', '--tenant', '--no-browser', '--concurrency', '--lan'],
  'db status': [],
  'db migrate': [],
  'db reconcile': ['--period'],
};

function leaves(command: Command, path: string[] = []): Record<string, Command> {
  const found: Record<string, Command> = {};
  for (const sub of command.commands) {
    const name = [...path, sub.name()];
    if (sub.commands.length > 0) Object.assign(found, leaves(sub, name));
    else found[name.join(' ')] = sub;
  }
  return found;
}

describe('the commander wiring', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('has exactly the documented global options', () => {
    expect(buildProgram().options.map((o) => o.long)).toEqual(GLOBAL_OPTIONS);
  });

  it('has exactly the documented commands, each with exactly its options and an action', () => {
    const found = leaves(buildProgram());
    expect(Object.keys(found).sort()).toEqual(Object.keys(COMMANDS).sort());
    for (const [name, options] of Object.entries(COMMANDS)) {
      expect(
        found[name]!.options.map((o) => o.long),
        name,
      ).toEqual(options);
      expect(found[name]!.description(), name).not.toBe('');
    }
  });

  it('names IMMOREEL_BASE_URL, IMMOREEL_PROFILE, IMMOREEL_DATA_DIR, IMMOREEL_DATABASE_URL and IMMOREEL_STORAGE_URL beside their flags, and reads them under the flags', () => {
    const variables = {
      '--base-url': ['IMMOREEL_BASE_URL', 'baseUrl', 'https://api.example.com'],
      '--profile': ['IMMOREEL_PROFILE', 'profile', 'prod'],
      '--data-dir': ['IMMOREEL_DATA_DIR', 'dataDir', '/srv/immoreel'],
      '--database-url': ['IMMOREEL_DATABASE_URL', 'databaseUrl', 'postgres://db/immoreel'],
      '--storage-url': ['IMMOREEL_STORAGE_URL', 'storageUrl', 's3://videos'],
    } as const;
    const options = Object.fromEntries(buildProgram().options.map((o) => [o.long, o]));
    for (const [flag, [name, key, value]] of Object.entries(variables)) {
      expect(options[flag]?.description, flag).toContain(`(env: ${name})`);
      // commander sees only what was typed; the configuration reads the variable, under the flag.
      expect(options[flag]?.envVar, flag).toBeUndefined();
      expect(loadConfig({ env: { [name]: value } })[key], name).toBe(value);
      expect(loadConfig({ env: { [name]: value }, flags: { [key]: `${value}2` } })[key], name).toBe(`${value}2`);
    }
  });

  const exits: [string, string[], number][] = [
    ['help', ['--help'], 0],
    ['version', ['--version'], 0],
    ['a subcommand help', ['jobs', 'download', '--help'], 0],
    ['an unknown command', ['renderr'], 2],
    ['an unknown option', ['analyze', '--no-such-flag'], 2],
    ['a value outside the choices', ['render', '--format', 'wide'], 2],
    ['a missing argument', ['jobs', 'show'], 2],
    ['a missing option value', ['analyze', '--csv'], 2],
    ['a missing required option', ['keys', 'create'], 2],
    ['a bad --concurrency', ['analyze', '--csv', 'x.csv', '--concurrency', 'abc'], 2],
  ];
  it.each(exits)('exits with the documented code on %s', async (_name, args, code) => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await main(['node', 'immoreel', ...args], process.env)).toBe(code);
  });

  it('lists every exit code of the error codes in the help', () => {
    let help = '';
    const program = buildProgram().configureOutput({ writeOut: (text) => (help += text) });
    program.outputHelp();
    for (const { exitCode } of Object.values(ERROR_CODES))
      expect(help).toMatch(new RegExp(`\\n\\s+${exitCode}\\s|\\s{2}${exitCode}\\s{2}`));
    expect(help).toMatch(/130/);
  });
});
