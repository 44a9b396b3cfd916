import { Command } from 'commander';
import { lazy } from './lazy.js';

const EXAMPLES = `
Examples:
  $ immoreel studio                     # prints a one-time sign-in link and opens it in the browser
  $ immoreel studio --port 8765 --no-browser
  $ immoreel studio --lan               # also a link for a phone on the same Wi-Fi (Enter: one more device)

Like Jupyter: the service listens on 127.0.0.1 only, and the link signs the browser in once
(the key it carries lives in an HttpOnly cookie). The key is created for --tenant on start and
revoked on stop (Ctrl-C). The page's history shows that tenant's jobs.`;

export function studioCommand(): Command {
  return new Command('studio')
    .description('Open the Studio web page on this machine (127.0.0.1) with a one-time sign-in link.')
    .option('--port <port>', 'port to listen on (0 = any free port)', '0')
    .option('--tenant <name>', 'tenant whose jobs the Studio shows', 'studio')
    .option('--no-browser', 'print the link without opening a browser')
    .option('--concurrency <n>', 'renders at once (default: min(30, CPU cores))')
    .option('--lan', 'also listen on the local network, with a one-time link per phone or other device (plain http: trusted networks only)')
    .addHelpText('after', EXAMPLES)
    .action(lazy(async () => (await import('../commands/studio.js')).studio));
}
