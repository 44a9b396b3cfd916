/** CSV in the page (RFC 4180: quoted fields, doubled quotes, CRLF or LF), for the batch screen. */

export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const source = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (quoted) {
      if (c === '"' && source[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && source[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (quoted) throw new Error('a quoted field is not closed');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((cell) => cell.trim() !== ''));
}

/** Header + rows → records keyed by column name. */
export function csvRecords(text: string): { columns: string[]; records: Record<string, string>[] } {
  const [header, ...rows] = parseCsv(text);
  if (header === undefined) return { columns: [], records: [] };
  const columns = header.map((name) => name.trim());
  return { columns, records: rows.map((cells) => Object.fromEntries(columns.map((name, i) => [name, cells[i] ?? '']))) };
}

function quote(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function toCsv(columns: string[], records: Record<string, string>[]): string {
  return [columns, ...records.map((r) => columns.map((c) => r[c] ?? ''))].map((cells) => cells.map(quote).join(',')).join('\r\n') + '\r\n';
}
