// Cutting user text to a length without splitting a character. `String.prototype.slice` counts
// UTF-16 code units: a cut inside a surrogate pair (most emoji) leaves a lone surrogate, which
// encodeURIComponent rejects (a 500 on the transcript export's file name) and PostgreSQL stores as
// U+FFFD. A cut between the parts of one user-perceived character (a flag, an emoji ZWJ sequence,
// a letter and its combining accent) leaves a different character. Text is therefore cut at
// grapheme cluster boundaries (Intl.Segmenter, Unicode UAX #29).

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Every limit given holds. A grapheme cluster has no length bound of its own (a letter may carry
 * thousands of combining marks), so a count of clusters alone does not bound the size: give
 * maxCodeUnits or maxUtf8Bytes as well wherever size matters.
 */
export interface CutLimits {
  /** At most this many grapheme clusters (user-perceived characters). */
  maxGraphemes?: number;
  /** At most this many UTF-16 code units (String.length; what a TypeBox maxLength counts). */
  maxCodeUnits?: number;
  /** At most this many bytes of UTF-8. */
  maxUtf8Bytes?: number;
}

/** The longest prefix of `text` made of whole grapheme clusters within the limits. */
export function cutText(text: string, limits: CutLimits): string {
  const maxGraphemes = limits.maxGraphemes ?? Infinity;
  const maxUnits = limits.maxCodeUnits ?? Infinity;
  const maxBytes = limits.maxUtf8Bytes ?? Infinity;
  // Fast path: within every limit counted in code units (UTF-8 takes at most 3 bytes per unit).
  if (text.length <= maxGraphemes && text.length <= maxUnits && text.length * 3 <= maxBytes) return text;
  let end = 0;
  let count = 0;
  let bytes = 0;
  for (const { segment, index } of graphemes.segment(text)) {
    if (count >= maxGraphemes || index + segment.length > maxUnits) break;
    const size = Buffer.byteLength(segment, 'utf8');
    if (bytes + size > maxBytes) break;
    count += 1;
    bytes += size;
    end = index + segment.length;
  }
  return text.slice(0, end);
}
