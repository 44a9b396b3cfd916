import type { PhotoItem } from './requests.js';

// Kept apart from the request validators (and their ajv) because the Studio's page uses them
// (docs/studio.md "Files").

/** A photo item's reference. */
export function photoRef(item: PhotoItem): string {
  return typeof item === 'string' ? item : item.url;
}

/** The item with another reference (a local file replaced by its uploaded asset), its focus kept. */
export function withPhotoRef(item: PhotoItem, ref: string): PhotoItem {
  return typeof item === 'string' ? ref : { ...item, url: ref };
}
