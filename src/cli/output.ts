import { Chalk, type ChalkInstance } from 'chalk';
import ora, { type Ora } from 'ora';

/**
 * Where everything the CLI prints goes (docs/cli.md): data on stdout (one JSON document, NDJSON
 * lines, or a readable summary), messages and progress on stderr. Spinners only when stderr is
 * a TTY; colours off with NO_COLOR, --no-color, and on each stream that is not a TTY; --quiet
 * silences messages.
 */
export interface OutputOptions {
  json: boolean;
  quiet: boolean;
  color: boolean;
}

export interface Progress {
  update(text: string): void;
  succeed(text?: string): void;
  fail(text?: string): void;
  stop(): void;
}

export class Output {
  readonly json: boolean;
  readonly quiet: boolean;
  /** Colours for what goes to stdout (on only when stdout is a terminal). */
  readonly style: ChalkInstance;
  /** Colours for messages on stderr (on only when stderr is a terminal). */
  private readonly errStyle: ChalkInstance;
  private readonly stderrIsTty: boolean;

  constructor(
    options: OutputOptions,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {
    this.json = options.json;
    this.quiet = options.quiet;
    this.stderrIsTty = Boolean((stderr as NodeJS.WriteStream).isTTY);
    // NO_COLOR is part of `options.color`: the configuration read it (docs/configuration.md).
    const colorWanted = options.color;
    // Each stream is coloured only when it is a terminal: `jobs list > file` gets plain text.
    const stdoutIsTty = Boolean((stdout as NodeJS.WriteStream).isTTY);
    this.style = new Chalk({ level: colorWanted && stdoutIsTty ? 1 : 0 });
    this.errStyle = new Chalk({ level: colorWanted && this.stderrIsTty ? 1 : 0 });
  }

  /** One JSON document on stdout. */
  data(value: unknown): void {
    this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** One NDJSON line on stdout (batches). */
  record(value: unknown): void {
    this.stdout.write(`${JSON.stringify(value)}\n`);
  }

  /** Human-readable data on stdout (the summary printed without --json). */
  text(value: string): void {
    this.stdout.write(value.endsWith('\n') ? value : `${value}\n`);
  }

  /** A message for the person at the terminal, on stderr; silenced by --quiet. */
  info(message: string): void {
    if (!this.quiet) this.stderr.write(`${message}\n`);
  }

  warn(message: string): void {
    if (!this.quiet) this.stderr.write(`${this.errStyle.yellow('warning:')} ${message}\n`);
  }

  /** Errors are always shown, even with --quiet: cron mails them. */
  error(message: string): void {
    this.stderr.write(`${this.errStyle.red('error:')} ${message}\n`);
  }

  /** A spinner on a TTY; elsewhere a no-op, so logs and pipes stay clean. */
  progress(text: string): Progress {
    // A terminal that reports 0 columns (some CI pseudo-terminals) would make the spinner loop forever.
    if (this.quiet || !this.stderrIsTty || (this.stderr as NodeJS.WriteStream).columns === 0) {
      return { update() {}, succeed() {}, fail() {}, stop() {} };
    }
    // discardStdin off: ora would put the terminal in raw mode, which swallows Ctrl-C and stalls renders.
    const spinner: Ora = ora({ text, stream: this.stderr as NodeJS.WriteStream, color: 'cyan', discardStdin: false }).start();
    return {
      update: (next) => {
        spinner.text = next;
      },
      succeed: (final) => {
        spinner.succeed(final);
      },
      fail: (final) => {
        spinner.fail(final);
      },
      stop: () => {
        spinner.stop();
      },
    };
  }
}
