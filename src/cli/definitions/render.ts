import { Command, Option } from 'commander';
import { withListingInputs } from './inputs.js';
import { lazy } from './lazy.js';
import { AUDIENCE_CHOICES, VIDEO_FORMATS } from '../../core/types.js';

const EXAMPLES = `
Examples:
  $ immoreel render --demo --out demo.mp4
  $ immoreel render --demo --format portrait --template social --out reel.mp4
  $ immoreel render --demo --formats landscape,portrait,square --poster --out villa.mp4   # villa-landscape.mp4, villa-portrait.mp4, …
  $ immoreel render --demo --language ar --out demo-ar.mp4
  $ immoreel render --url https://www.mubawab.ma/fr/a/8418668/... --out villa.mp4
  $ immoreel render --description-file annonce.txt --photos-dir ./photos --agency "Atlas Immobilier" --phone "+212 6 00 00 00 00"
  $ immoreel analyze --description-file annonce.txt --json > listing.json && immoreel render --listing-json listing.json --photos a.jpg,b.jpg
  $ immoreel render --demo --no-wait --json          # queue it, print the job, render in the background
  $ immoreel render --csv listings.csv --out-dir videos/ --resume`;

export function renderCommand(): Command {
  return withListingInputs(new Command('render').description('Render a listing into a marketing video (MP4, 720p, 60 fps, AAC 160 kbps).'))
    .option('--listing-json <file>', 'an `immoreel analyze --json` output: skips analysis')
    .option('--photos <list>', "photos: files or URLs separated by commas (default: the listing page's photos)")
    .option('--photos-dir <dir>', 'every photo in a folder, in name order')
    .option(
      '--focus <file=x,y>',
      "a photo's subject, kept in frame by every crop and movement: file name (or URL) = x,y as fractions 0–1, e.g. salon.jpg=0.2,0.5 (repeatable; default: found in the photo)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--template <name>', 'classic, luxury or social (see `immoreel templates list`)')
    .addOption(new Option('--format <format>', 'frame format').choices([...VIDEO_FORMATS]))
    .option(
      '--formats <list>',
      'a video pack from one job (one quota unit per format): formats separated by commas, e.g. landscape,portrait,square; files <name>-<format>.mp4',
    )
    .option('--duration <seconds>', "video length, 10–90 s (default: the template's)")
    .addOption(new Option('--language <lang>', 'language of the texts').choices(['fr', 'en', 'ar']))
    .addOption(new Option('--audience <audience>', 'buyer profile to aim at').choices([...AUDIENCE_CHOICES]))
    .option(
      '--music <music>',
      "auto (the template's mood), none, a bundled track (sunny-terrace, marble-hall, city-lights) or an audio file",
    )
    .option('--agency <name>', 'agency name (outro and corner mark)')
    .option('--agent <name>', 'agent name (outro)')
    .option('--phone <phone>', 'agent or agency phone (outro)')
    .option('--email <email>', 'agent or agency e-mail (outro)')
    .option('--logo <file-or-url>', 'agency logo image')
    .option('--color <#RRGGBB>', 'agency colour for badges and bars')
    .option('--unbranded', 'no agent, agency or logo anywhere (MLS-style unbranded tours)')
    .option('--out <file.mp4>', 'where to save the video (default: <job id>.mp4)')
    .option('--force', 'overwrite --out (and its pack and poster files) if it exists')
    .option('--poster', "also save each video's poster, a JPEG of its title card, next to it (<file>-poster.jpg)")
    .option('--no-wait', 'queue the job, print it and return (local mode renders in a background worker)')
    .option('--demo', 'render the bundled sample listing with its bundled photos (offline)')
    .option('--csv <file>', 'batch: one video per row (columns id,url,description,photos,template,format,…)')
    .option('--out-dir <dir>', 'batch: folder for the videos (<id>.mp4)')
    .option('--resume', 'batch: skip rows already rendered into --out-dir')
    .option('--concurrency <n>', 'batch: rows rendered at once')
    .addHelpText('after', EXAMPLES)
    .action(lazy(async () => (await import('../commands/render.js')).render));
}
