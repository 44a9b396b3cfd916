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
  input: Pick<RenderRequest, 'url' | 'html' | 'description' | 'language' | 'target_audience' | 'confirmed_facts'>;
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

/** Where one output of a render goes (docs/rendering.md "Packs"). */
export interface OutputTarget {
  format: VideoFormat;
  /** Where the verified MP4 of this format must end up; written under a temporary name, then renamed. */
  outputPath: string;
  /** Where this output's poster goes, when one is wanted (docs/api.md "The poster"). */
  posterPath?: string;
}

export interface RenderContext {
  /** The job's own directory: the engine reads and writes nothing outside it (and the shared photo cache). */
  workDir: string;
  /** Where the verified MP4 must end up; written under a temporary name, then renamed. Ignored when `outputs` is set. */
  outputPath: string;
  /** Where the video's poster (a JPEG of its title card) goes, when one is wanted (docs/api.md "The poster"). Ignored when `outputs` is set. */
  posterPath?: string;
  /**
   * One target per format of the request, in `formats` order (docs/rendering.md "Packs"); when set,
   * `outputPath` and `posterPath` are ignored. Required for a pack of more than one format.
   */
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
  /** Every output of the render, the first being `format` (docs/rendering.md "Packs"); absent = `[format]`. */
  formats?: VideoFormat[];
};

/** What the renderer hands back: the verified videos and what it left out. */
export interface RenderedVideo {
  /** ffprobe-verified properties of the primary output (video_url is filled in by the job layer); `outputs[0].result`. */
  result: Omit<VideoResult, 'video_url'>;
  /** Every output, in `formats` order (one for a single-format render). */
  outputs: Array<{ format: VideoFormat; result: Omit<VideoResult, 'video_url'> }>;
  warnings: Warning[];
}

/** A finished job: the videos, the listing they were made from (for the job record), all warnings. */
export interface RenderOutcome extends Omit<RenderedVideo, 'outputs'> {
  listing: Property;
  /** As `RenderedVideo.outputs`; an engine that leaves it out rendered one output, `result`. */
  outputs?: RenderedVideo['outputs'];
}
