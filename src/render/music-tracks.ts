/**
 * The music beds shipped in assets/music (generated for the project by scripts/make-music.ts,
 * see assets/music/README.md). A template names a mood; `--music NAME` picks a track directly.
 */

export const MUSIC_MOODS = ['bright', 'elegant', 'upbeat'] as const;
export type MusicMood = (typeof MUSIC_MOODS)[number];

export interface MusicTrack {
  name: string;
  mood: MusicMood;
  file: string;
  description: string;
  /** Length of the file's audio stream, as ffprobe reads it: a render needs not probe it again. */
  durationS: number;
}

export const MUSIC_TRACKS: readonly MusicTrack[] = [
  {
    name: 'sunny-terrace',
    mood: 'bright',
    file: 'sunny-terrace.m4a',
    description: 'warm piano-like chords and a soft pulse, 96 BPM',
    durationS: 40,
  },
  {
    name: 'marble-hall',
    mood: 'elegant',
    file: 'marble-hall.m4a',
    description: 'slow pads and a sparse bell melody, 72 BPM',
    durationS: 40,
  },
  {
    name: 'city-lights',
    mood: 'upbeat',
    file: 'city-lights.m4a',
    description: 'plucked arpeggios over a light beat, 118 BPM',
    durationS: 40.678,
  },
];

export function trackByName(name: string): MusicTrack | undefined {
  return MUSIC_TRACKS.find((track) => track.name === name);
}

export function trackForMood(mood: MusicMood): MusicTrack {
  return MUSIC_TRACKS.find((track) => track.mood === mood) ?? (MUSIC_TRACKS[0] as MusicTrack);
}
