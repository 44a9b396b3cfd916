import { $ } from '../dom.js';
import { state } from '../state.js';

/** The agency's branding, remembered in localStorage for next time, never the key (docs/studio.md, "Security"). */

const BRANDING_STORE = 'immoreel.studio.branding';

export interface StoredBranding {
  agency_name?: string;
  agent_name?: string;
  phone?: string;
  logo?: { dataUrl: string; type: string };
}

export function storedBranding(): StoredBranding {
  try {
    return JSON.parse(localStorage.getItem(BRANDING_STORE) ?? '{}') as StoredBranding;
  } catch {
    return {};
  }
}

function saveBranding(update: Partial<StoredBranding>): void {
  const next = { ...storedBranding(), ...update };
  try {
    localStorage.setItem(BRANDING_STORE, JSON.stringify(next));
  } catch {
    // Storage full or disabled: branding is simply not remembered.
  }
}

function showLogo(): void {
  const logo = storedBranding().logo;
  $('logo-preview').hidden = logo === undefined;
  if (logo !== undefined) $<HTMLImageElement>('logo-img').src = logo.dataUrl;
}

export function wireBranding(): void {
  const stored = storedBranding();
  $<HTMLInputElement>('brand-agency').value = stored.agency_name ?? '';
  $<HTMLInputElement>('brand-agent').value = stored.agent_name ?? '';
  $<HTMLInputElement>('brand-phone').value = stored.phone ?? '';
  showLogo();
  const fields: [string, keyof StoredBranding][] = [
    ['brand-agency', 'agency_name'],
    ['brand-agent', 'agent_name'],
    ['brand-phone', 'phone'],
  ];
  for (const [id, key] of fields) $(id).addEventListener('input', () => saveBranding({ [key]: $<HTMLInputElement>(id).value }));
  $('brand-logo').addEventListener('change', () => {
    const file = $<HTMLInputElement>('brand-logo').files?.[0];
    if (file === undefined) return;
    const reader = new FileReader();
    reader.onload = () => {
      saveBranding({ logo: { dataUrl: String(reader.result), type: file.type } });
      state.logoRef = null;
      showLogo();
    };
    reader.readAsDataURL(file);
  });
  $('logo-remove').addEventListener('click', () => {
    const { logo: _drop, ...rest } = storedBranding();
    try {
      localStorage.setItem(BRANDING_STORE, JSON.stringify(rest));
    } catch {
      // Nothing stored, nothing to remove.
    }
    state.logoRef = null;
    $<HTMLInputElement>('brand-logo').value = '';
    showLogo();
  });
}

/** The branding fields as the render request wants them (empty ones left out). */
export function brandingFields(): Record<string, string> {
  const branding: Record<string, string> = {};
  const agency = $<HTMLInputElement>('brand-agency').value.trim();
  const agent = $<HTMLInputElement>('brand-agent').value.trim();
  const phone = $<HTMLInputElement>('brand-phone').value.trim();
  if (agency !== '') branding.agency_name = agency;
  if (agent !== '') branding.agent_name = agent;
  if (phone !== '') branding.phone = phone;
  return branding;
}

export function dataUrlBlob(dataUrl: string, type: string): Blob {
  const bytes = atob(dataUrl.slice(dataUrl.indexOf(',') + 1));
  const array = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) array[i] = bytes.charCodeAt(i);
  return new Blob([array], { type });
}
