/**
 * Secrets out of text that leaves the process (trace files, logs; docs/security.md "Local data"):
 * the password of any `scheme://user:password@host` URL, `password=`/`sslpassword=` query
 * parameters, the value given to `--api-key`, and anything shaped like an immoreel API key.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(/\b([a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@]{0,200}):[^\s@/]{1,400}@/gi, '$1:***@')
    .replace(/([?&](?:ssl)?password=)[^&\s]+/gi, '$1***')
    .replace(/(--api-key(?:=|\s+))\S+/g, '$1***')
    .replace(/\bimk_[A-Za-z0-9_-]{8,}/g, 'imk_***');
}

/**
 * The query strings of http(s) URLs in `text`, left out: a webhook URL often carries its
 * receiver's secret there (`?token=…`), and an error naming the URL goes to the logs.
 */
export function redactUrlQueries(text: string): string {
  return text.replace(/\b(https?:\/\/[^\s?#"']*)\?[^\s#"']*/gi, '$1?***');
}
