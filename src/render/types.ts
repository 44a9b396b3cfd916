import type { JobStage, Language, Property, VideoFormat, VideoResult, Warning } from '../core/types.js';
import type { AnalyzeRequest, Branding, RenderRequest } from '../core/requests.js';
import type { FfmpegSettings } from '../config/config-schema.js';
import type { FetchPort } from '../net/fetch.js';

/**
 * A render request after validation (`validateRenderRequest`): every field checked and defaulted,
 * safe to store in the job store as JSON and to run later, in another process.
 */
export interface ValidRenderRequest {
  /** The listing inputs, analysed when the job runs (unless `listing` is given). */
  input: Pick<RenderRequest, 'url' | 'html' | 'description' | 'language' | 'target_audience'>;
  listing: Property | null;
  /** URLs, `asset:<id>` references or local file paths; empty = the listing page's photos. */
  photos: string[];
  template: string;
  /** The primary output's format: `formats[0]`. */
  format: VideoFormat;
  /**
   * Every output of the job, in request order, 1–3 distinct formats (docs/api.md "Video packs").
   * Requests stored before packs have none: the record stores read them as `[format]` (`storedRequest`).
   */
  formats: VideoFormat[];
  /** null = the template's default duration. */
  duration_s: number | null;
  language: Language;
  music: string;
  branding: Branding;
  webhook_url: string | null;
  metadata: Record<string, unknown> | null;
}

/** One output of a render: where its verified MP4 (and its poster, when wanted) must end up. */
export interface OutputTarget {
  format: VideoFormat;
  outputPath: string;
  posterPath?: string;
}

export interface RenderContext {
  /** The job's own directory: the engine reads and writes nothing outside it (and the shared photo cache). */
  workDir: string;
  /** Where the verified MP4 must end up; written under a temporary name, then renamed. */
  outputPath: string;
  /** Where the video's poster (a JPEG of its title card) goes, when one is wanted (docs/api.md "The poster"). */
  posterPath?: string;
  /** One target per format of `RenderSpec.formats`, in that order; when set, `outputPath` and `posterPath` are ignored. */
  outputs?: OutputTarget[];
  signal: AbortSignal;
  /** Where ffmpeg and ffprobe are (docs/configuration.md), as the entry point read them. */
  ffmpeg: FfmpegSettings;
  /** ffmpeg thread budget for this render (the pool divides the machine's cores). */
  threads: number;
  onProgress: (stage: JobStage, progress: number) => void;
  /** Resolves `asset:<id>` references to local files (server mode). */
  resolveAsset?: (assetId: string) => Promise<string>;
  /** Wall-clock limit for the ffmpeg run; the render fails when it is exceeded. */
  watchdogMs?: number;
  /** Local mode may read photo/music/logo file paths; the server may not. */
  allowLocalFiles: boolean;
  /**
   * The network for photos and the logo (and, in the job layer, the listing page): guarded on the
   * server, open in local mode. Chosen by the job layer, never here (docs/architecture.md).
   */
  fetch: FetchPort;
  /** MAD per EUR for the analysis of the listing (the job engine's; default the analysis's own). */
  eurToMad?: number;
  /**
   * The cache shared by all jobs (normalised photos, shot stills, logos), keyed by content hash.
   * Default: `<data dir>/cache/render`, derived from workDir = `<data dir>/jobs/<job id>`.
   */
  cacheDir?: string;
  /**
   * Analyses the job's listing input; default in this thread. The server passes its worker-thread
   * pool, so a render's analysis never runs on the server's event loop (docs/security.md).
   */
  analyze?: (input: AnalyzeRequest, signal: AbortSignal) => Promise<Property>;
}

/** What the renderer needs of a validated request: the listing is analysed before, by the job layer. */
export type RenderSpec = Pick<ValidRenderRequest, 'photos' | 'template' | 'format' | 'duration_s' | 'language' | 'music' | 'branding'> & {
  /** Absent = `[format]`. */
  formats?: VideoFormat[];
};

/** What the renderer hands back: the verified video and what it left out. */
export interface RenderedVideo {
  /** ffprobe-verified properties of `outputPath` (video_url is filled in by the job layer). */
  result: Omit<VideoResult, 'video_url'>;
  /** Every output, in `formats` order; `result` is `outputs[0].result`. */
  outputs: Array<{ format: VideoFormat; result: Omit<VideoResult, 'video_url'> }>;
  warnings: Warning[];
}

/** A finished job: the video, the listing it was made from (for the job record), all warnings. */
export interface RenderOutcome extends RenderedVideo {
  listing: Property;
}
