import { Type, type Static } from '@sinclair/typebox';

/**
 * The one configuration of a run (docs/configuration.md): every flag that selects where things are
 * and every environment variable immoreel reads, checked once by `loadConfig` at the entry points
 * (the CLI, `serve`, `worker`, `studio`) and handed down as plain values. Nothing below the entry
 * points reads the environment.
 */

const Text = Type.String({ minLength: 1 });

/** Where a selecting value came from: a flag typed now, the environment, or the built-in default. */
export const SourceSchema = Type.Union([Type.Literal('flag'), Type.Literal('env'), Type.Literal('default')]);
export type Source = Static<typeof SourceSchema>;

/** How ffmpeg and ffprobe are found (docs/rendering.md): an explicit path each, else a search of `searchPath`. */
export const FfmpegSettingsSchema = Type.Object({
  ffmpegPath: Type.Optional(Text),
  ffprobePath: Type.Optional(Text),
  /** The PATH to search, as the process was given it ('' when unset). */
  searchPath: Type.String(),
});
export type FfmpegSettings = Static<typeof FfmpegSettingsSchema>;

/** The proxy of local-mode fetches (docs/configuration.md "Network"); guarded fetches never use it. */
export const ProxySettingsSchema = Type.Object({
  httpProxy: Type.Optional(Text),
  httpsProxy: Type.Optional(Text),
  noProxy: Type.Optional(Text),
});
export type ProxySettings = Static<typeof ProxySettingsSchema>;

/** The lease and queue timings of docs/jobs.md "Crash safety", in seconds. */
export const JobTimingSettingsSchema = Type.Object({
  leaseSeconds: Type.Integer({ minimum: 1, maximum: 86_400 }),
  renderExpirySeconds: Type.Integer({ minimum: 1, maximum: 86_400 }),
  retryDelaySeconds: Type.Integer({ minimum: 1, maximum: 86_400 }),
  /** `IMMOREEL_FETCH_BUDGET_SECONDS`: the total time a job may spend fetching its listing and photos (docs/scaling.md "Fairness"). */
  fetchBudgetSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
  /** `IMMOREEL_SCRATCH_MIN_FREE_MB`: free scratch space a worker wants before it claims a job (docs/jobs.md "Worker faults"). */
  scratchMinFreeMb: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_048_576 })),
});
export type JobTimingSettings = Static<typeof JobTimingSettingsSchema>;

/** How long a Studio sign-in lasts (docs/studio.md "Sessions"), in seconds. */
export const SessionSettingsSchema = Type.Object({
  idleSeconds: Type.Integer({ minimum: 60, maximum: 2_592_000 }),
  maxSeconds: Type.Integer({ minimum: 60, maximum: 2_592_000 }),
});

/** A host name or IP address as a browser puts it in `Host`, without port: `studio.example.com`, `192.0.2.7`, `[2001:db8::1]`. */
export const HOST_NAME_PATTERN =
  '^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\\[[0-9A-Fa-f:.]+\\])$';

export const ConfigSchema = Type.Object({
  /** `--data-dir` / `IMMOREEL_DATA_DIR`, else the platform's data directory (docs/jobs.md). */
  dataDir: Text,
  /** `IMMOREEL_CONFIG_DIR`, else the platform's config directory: saved profiles (docs/remote.md). */
  configDir: Text,
  /** `--database-url` / `IMMOREEL_DATABASE_URL` (docs/scaling.md "Configuration"). */
  databaseUrl: Type.Optional(Text),
  /** `--storage-url` / `IMMOREEL_STORAGE_URL`. */
  storageUrl: Type.Optional(Text),
  /** `--profile` / `IMMOREEL_PROFILE`: a saved remote server profile. */
  profile: Type.Optional(Text),
  /** `--base-url` / `IMMOREEL_BASE_URL`: remote mode against that server. */
  baseUrl: Type.Optional(Text),
  /** `IMMOREEL_API_KEY`: the key of remote mode, over a saved profile's. Never printed. */
  apiKey: Type.Optional(Text),
  /** `--insecure`: remote mode over plain http:// to another machine, accepted knowingly. */
  insecure: Type.Boolean(),
  /** `--allow-loopback-fetch` / `IMMOREEL_ALLOW_LOOPBACK_FETCH` (serve, worker): tests with fixture servers only. */
  allowLoopbackFetch: Type.Boolean(),
  /**
   * `--metrics-port` / `IMMOREEL_METRICS_PORT` (serve, worker): where /metrics and the worker's
   * probes are served (docs/operations.md "Metrics"); unset = no metrics port; 0 = any free port.
   */
  metricsPort: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  /** `--metrics-host` / `IMMOREEL_METRICS_HOST`: the address of the metrics port (default 127.0.0.1). */
  metricsHost: Text,
  /**
   * `serve --trust-proxy` / `IMMOREEL_TRUST_PROXY`: the server is reached only through a reverse
   * proxy, whose `X-Forwarded-Proto`/`-For`/`-Host` are then believed (docs/studio.md "Behind a proxy").
   */
  trustProxy: Type.Boolean(),
  /** `serve --public-host` / `IMMOREEL_PUBLIC_HOST`: the names the Studio answers to besides the bound address. */
  publicHosts: Type.Array(Type.String({ pattern: HOST_NAME_PATTERN, maxLength: 253 })),
  /** `IMMOREEL_SESSION_IDLE_SECONDS`, `IMMOREEL_SESSION_MAX_SECONDS` (serve, studio). */
  sessions: SessionSettingsSchema,
  /** Colours on terminals: off with `--no-color` or a non-empty `NO_COLOR`. */
  color: Type.Boolean(),
  /** `IMMOREEL_EUR_TO_MAD`: MAD per EUR for prices stated in euros; unset = the analysis's own default. */
  eurToMad: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1000 })),
  ffmpeg: FfmpegSettingsSchema,
  proxy: ProxySettingsSchema,
  /** The `AWS_*` variables as given: the S3 blob store's settings (the SDK reads its credential chain itself). */
  aws: Type.Record(Type.String(), Type.String()),
  jobs: JobTimingSettingsSchema,
  /**
   * `--startup-wait` / `IMMOREEL_STARTUP_WAIT_SECONDS` (serve, worker): how long a start waits for a
   * database or storage that is not reachable yet (docs/operations.md "Start-up"); 0 = fail at once.
   */
  startupWaitSeconds: Type.Integer({ minimum: 0, maximum: 3600 }),
  /**
   * `IMMOREEL_REMOTE_WAIT_SECONDS`: how long remote mode waits out a server that answers 503 or
   * refuses connections before it gives up with exit 6 (docs/remote.md "Outages"); 0 = at once.
   */
  remoteWaitSeconds: Type.Integer({ minimum: 0, maximum: 3600 }),
  /** A graphical session (`DISPLAY` or `WAYLAND_DISPLAY`): `studio` may open the browser. */
  display: Type.Boolean(),
  /** Where each selecting value came from: follow-up hints repeat only the flags (docs/cli.md "Hints"). */
  sources: Type.Object({
    dataDir: SourceSchema,
    databaseUrl: SourceSchema,
    storageUrl: SourceSchema,
    profile: SourceSchema,
    baseUrl: SourceSchema,
  }),
});
export type Config = Static<typeof ConfigSchema>;
