export { defaultDirectories, loadConfig, type ConfigFlags, type LoadConfigInput } from './load.js';
export { wantsColor, type Environment } from './environment.js';
export type { Config, FfmpegSettings, JobTimingSettings, ProxySettings, Source } from './schema.js';
export { ConfigSchema } from './schema.js';
