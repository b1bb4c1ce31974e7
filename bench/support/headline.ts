// The headline table (docs/bench/README.md and the README's pointer to it) is assembled by
// bench/run.ts from markers the benchmark scripts put in their own reports, so every headline
// number is one a script wrote, next to its provenance. A report adds a row with
// `headlineMarker({...})` on a line of its own; run.ts reads every docs/bench/*.md for them.
import type { SampleKind } from './provenance.js';

export interface HeadlineRow {
  /** What is measured, e.g. "word error rate, mono16k.wav". */
  figure: string;
  /** The measured value as the report prints it, e.g. "15.5 %". */
  value: string;
  /** Data set in a few words, e.g. "synthetic corpus, 12 calls (flite voices)". */
  data: string;
  sample: SampleKind;
  /** Real people's voices or synthetic ones: the headline shows them side by side. */
  voices: 'real' | 'synthetic' | 'none';
  /** The report section the figure comes from, e.g. "speech.md#mono16kwav". */
  section: string;
}

const PREFIX = '<!-- headline: ';

export function headlineMarker(row: HeadlineRow): string {
  return `${PREFIX}${JSON.stringify(row).replaceAll('--', '- -')} -->`;
}

/** Every headline row in a report's text. */
export function readHeadlineMarkers(text: string): HeadlineRow[] {
  const rows: HeadlineRow[] = [];
  for (const line of text.split('\n')) {
    const at = line.indexOf(PREFIX);
    if (at < 0) continue;
    const json = line.slice(at + PREFIX.length, line.lastIndexOf(' -->'));
    try {
      rows.push(JSON.parse(json) as HeadlineRow);
    } catch {
      // a malformed marker is skipped; run.ts reports the count it found per file
    }
  }
  return rows;
}
