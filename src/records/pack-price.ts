/**
 * What a render costs in monthly quota units (docs/api.md "Monthly quota"): one unit per output.
 * A video pack of three formats is three videos — measured at 2.3 × the CPU of one — so it costs
 * three units, and counts three of a preview tenant's concurrent renders. An analysis is one unit.
 */
export const UNITS_PER_OUTPUT = 1;
export const UNITS_PER_ANALYSIS = 1;

/** The units of a render job with `outputs` videos (its `formats`; a plain request is one). */
export function unitsForOutputs(outputs: number): number {
  return Math.max(1, outputs) * UNITS_PER_OUTPUT;
}
