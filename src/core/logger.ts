import { hostname } from 'node:os';
import { pino, type Logger, type LoggerOptions } from 'pino';
import { redactSecrets } from './redact.js';

export type { Logger };

/**
 * The one log format of the long-running processes, `serve` and `worker` (docs/operations.md
 * "Logs"): JSON lines on stderr with `time` (ISO 8601, UTC), `level` (a name, not pino's number),
 * `service`, `process`, `host` and `pid`, then the line's own fields (`event`, `job_id`, `tenant`,
 * `attempt`…). Interactive commands keep their human messages.
 */
export type LogProcess = 'serve' | 'worker' | 'studio';

export interface LoggerSettings {
  stream: NodeJS.WritableStream;
  level?: string;
  process: LogProcess;
}

/**
 * Fields that hold a secret whatever their value looks like: pino writes `***` instead (two levels
 * deep, where fastify and our own lines put them).
 */
const SECRET_FIELDS = ['authorization', 'cookie', 'password', 'secret', 'api_key', 'apiKey', 'webhook_secret', 'token'];
const REDACT_PATHS = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`),
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
];

/** pino's options for these processes; fastify is given a logger made from them too. */
export function loggerOptions(settings: Omit<LoggerSettings, 'stream'>): LoggerOptions {
  return {
    level: settings.level ?? 'info',
    base: { service: 'immoreel', process: settings.process, host: hostname(), pid: process.pid },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: REDACT_PATHS, censor: '***' },
    // Last line of defence, on the finished line: a database URL's password, an API key or an
    // `--api-key` value inside a message, an error's text or its stack (docs/security.md "Local data").
    hooks: { streamWrite: (line: string) => redactSecrets(line) },
  };
}

export function createLogger(settings: LoggerSettings): Logger {
  return pino(loggerOptions(settings), settings.stream as pino.DestinationStream);
}

/**
 * A logger as the job layer's reporter (`ProblemReporter` of jobs/pool.ts) and the webhook
 * duties' `log`: the message, its fields, and a level (`warn` when none is given).
 */
export function reporterOf(
  logger: Logger,
): (message: string, fields: Record<string, unknown>, level?: 'debug' | 'info' | 'warn' | 'error') => void {
  return (message, fields, level = 'warn') => logger[level](fields, message);
}
