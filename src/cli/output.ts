import { Chalk, type ChalkInstance } from 'chalk';
import ora, { type Ora } from 'ora';

/**
 * Where everything the CLI prints goes (docs/cli.md): data on stdout (one JSON document, NDJSON
 * lines, or a readable summary), messages and progress on stderr. Spinners only when stderr is
 * a TTY; colours off with NO_COLOR, --no-color or a non-TTY; --quiet silences messages.
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
  readonly style: ChalkInstance;
  private readonly stderrIsTty: boolean;

  constructor(options: OutputOptions, private readonly stdout: NodeJS.WritableStream = process.stdout, private readonly stderr: NodeJS.WritableStream = process.stderr) {
    this.json = options.json;
    this.quiet = options.quiet;
    this.stderrIsTty = Boolean((stderr as NodeJS.WriteStream).isTTY);
    const colorWanted = options.color && !('NO_COLOR' in process.env && process.env.NO_COLOR !== '');
    this.style = new Chalk({ level: colorWanted && this.stderrIsTty ? 1 : 0 });
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
    if (!this.quiet) this.stderr.write(`${this.style.yellow('warning:')} ${message}\n`);
  }

  /** Errors are always shown, even with --quiet: cron mails them. */
  error(message: string): void {
    this.stderr.write(`${this.style.red('error:')} ${message}\n`);
  }

  /** A spinner on a TTY; elsewhere a no-op, so logs and pipes stay clean. */
  progress(text: string): Progress {
    if (this.quiet || !this.stderrIsTty) {
      return { update() {}, succeed() {}, fail() {}, stop() {} };
    }
    const spinner: Ora = ora({ text, stream: this.stderr as NodeJS.WriteStream, color: 'cyan' }).start();
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
