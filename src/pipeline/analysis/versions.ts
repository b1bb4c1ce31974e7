// Stored analyses keep the shape they were produced in: the spec serves schemaVersion 1 and 2
// artifacts unchanged, so readers must branch on the version before touching v3-only fields.

/** The stored schemaVersion, or null when the artifact carries none. */
export function analysisSchemaVersion(stored: unknown): number | null {
  if (typeof stored !== 'object' || stored === null) return null;
  const v = (stored as { schemaVersion?: unknown }).schemaVersion;
  return typeof v === 'number' && Number.isInteger(v) ? v : null;
}

/**
 * True when the artifact must be served unchanged: schemaVersion 1 or 2, or (the oldest rows,
 * written before the field existed) no schemaVersion and none of the v3 fields, only legacy ones.
 */
export function isLegacyAnalysis(stored: unknown): boolean {
  const v = analysisSchemaVersion(stored);
  if (v === 1 || v === 2) return true;
  if (v !== null || typeof stored !== 'object' || stored === null || Array.isArray(stored)) return false;
  const o = stored as Record<string, unknown>;
  const hasV3 = 'oneLineSummary' in o || 'executiveSummary' in o || 'sections' in o;
  const hasLegacy = 'shortSummary' in o || 'detailedSummary' in o || 'keyPoints' in o;
  return hasLegacy && !hasV3;
}
