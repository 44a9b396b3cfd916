export { defaultDirectories, loadConfig, type ConfigFlags, type LoadConfigInput } from './load.js';
export { wantsColor, type Environment } from './environment.js';
export type { Config, FfmpegSettings, JobTimingSettings, ProxySettings, Source } from './config-schema.js';
export { ConfigSchema } from './config-schema.js';
