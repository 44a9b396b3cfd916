/**
 * One ffmpeg run as data: what the plan builders produce (pure) and what the runner hands to
 * fluent-ffmpeg's builder (`input`, `inputOptions`, `complexFilter`, `outputOptions`, `output`).
 * `commandArgs` gives the same run as the argument list ffmpeg receives, for logs, tests and
 * benchmarks. See docs/rendering.md.
 */
export interface FfmpegInput {
  file: string;
  /** Options that apply to this input (`-framerate 60`), placed before its `-i`. */
  options: string[];
}

export interface FfmpegCommandSpec {
  inputs: FfmpegInput[];
  /** A `-filter_complex` graph, or null for a run with simple filters only. */
  complexFilter: string | null;
  /** Everything after the inputs and the graph: maps, codecs, simple filters, format. */
  outputOptions: string[];
  output: string;
}

/**
 * Options of every run: no banner, no stdin, errors only, and the progress line (`-stats`, printed
 * even at this log level) that fluent-ffmpeg reads for its `progress` event.
 */
export const QUIET_OPTIONS: readonly string[] = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-stats'];

/** The argument list of a run, in the order fluent-ffmpeg builds it (`-y` as it adds for a file output). */
export function commandArgs(spec: FfmpegCommandSpec): string[] {
  return [
    ...spec.inputs.flatMap((input) => [...input.options, '-i', input.file]),
    '-y',
    ...(spec.complexFilter === null ? [] : ['-filter_complex', spec.complexFilter]),
    ...spec.outputOptions,
    spec.output,
  ];
}
