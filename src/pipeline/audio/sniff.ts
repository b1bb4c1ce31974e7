// Upload sniffing: an upload is accepted on what its bytes are, not on what its name or MIME type
// claim, because both are client-controlled. The checks are deliberately structural (frame headers
// are parsed and, where the head reaches it, the following frame is verified too) so that a text
// file or an image renamed to .mp3 is refused before it ever reaches ffmpeg.

export type AudioFormat = 'wav' | 'mp3' | 'm4a' | 'aac' | 'ogg';
export const AUDIO_FORMATS: readonly AudioFormat[] = ['wav', 'mp3', 'm4a', 'aac', 'ogg'];

/**
 * Leading bytes sniffAudio wants. Enough for an ID3 header plus a following frame in common
 * files and for two consecutive MPEG/ADTS frames at any realistic bitrate.
 */
export const SNIFF_BYTES = 16 * 1024;

/**
 * Largest ID3v2 tag looked past. After a tag the first audio frame must follow (a tag followed by
 * a playlist or a script is not audio), so the sniffer needs the bytes behind the tag; a tag larger
 * than this (cover art of several MB) is refused rather than buffered.
 */
export const MAX_ID3_BYTES = 1024 * 1024;

/** The most leading bytes sniffAudio ever asks for (see sniffBytesWanted). */
export const MAX_SNIFF_BYTES = MAX_ID3_BYTES + SNIFF_BYTES;

const ascii = (b: Buffer, start: number, len: number) => (b.length >= start + len ? b.toString('latin1', start, start + len) : '');

// ---------------------------------------------------------------- MPEG audio (mp3)
const MPEG1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MPEG1_L2 = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384];
const MPEG1_L1 = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448];
const MPEG2_L1 = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256];
const MPEG2_L23 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const MPEG_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** Length in bytes of the MPEG audio frame whose header starts at `i`, or 0 when it is not one. */
function mpegFrameLength(b: Buffer, i: number): number {
  if (i + 4 > b.length) return 0;
  if (b[i] !== 0xff || (b[i + 1] & 0xe0) !== 0xe0) return 0;
  const version = (b[i + 1] >> 3) & 3; // 3 = MPEG1, 2 = MPEG2, 0 = MPEG2.5, 1 reserved
  const layer = (b[i + 1] >> 1) & 3; // 3 = I, 2 = II, 1 = III, 0 reserved (ADTS uses 0)
  const bitrateIdx = (b[i + 2] >> 4) & 0xf;
  const rateIdx = (b[i + 2] >> 2) & 3;
  const padding = (b[i + 2] >> 1) & 1;
  // Free-format (bitrate index 0) frames have no computable length; they are too rare to matter.
  if (version === 1 || layer === 0 || bitrateIdx === 0 || bitrateIdx === 15 || rateIdx === 3) return 0;
  const sampleRate = MPEG_RATES[version][rateIdx];
  const table = version === 3 ? (layer === 3 ? MPEG1_L1 : layer === 2 ? MPEG1_L2 : MPEG1_L3) : layer === 3 ? MPEG2_L1 : MPEG2_L23;
  const bitrate = table[bitrateIdx] * 1000;
  if (layer === 3) return (Math.floor((12 * bitrate) / sampleRate) + padding) * 4;
  const samplesPerFrame = layer === 1 && version !== 3 ? 576 : 1152;
  return Math.floor(((samplesPerFrame / 8) * bitrate) / sampleRate) + padding;
}

// ---------------------------------------------------------------- ADTS (raw AAC)
/** Length of the ADTS frame starting at `i`, or 0 when it is not one. */
function adtsFrameLength(b: Buffer, i: number): number {
  if (i + 7 > b.length) return 0;
  if (b[i] !== 0xff || (b[i + 1] & 0xf0) !== 0xf0) return 0;
  if (((b[i + 1] >> 1) & 3) !== 0) return 0; // ADTS layer is always 0
  const profile = (b[i + 2] >> 6) & 3;
  const rateIdx = (b[i + 2] >> 2) & 0xf;
  if (rateIdx > 12 || profile === 3) return 0;
  const len = ((b[i + 3] & 3) << 11) | (b[i + 4] << 3) | (b[i + 5] >> 5);
  const headerLen = b[i + 1] & 1 ? 7 : 9;
  return len >= headerLen ? len : 0;
}

/**
 * A frame stream starting at `start`: the first header must parse and, when the head reaches the
 * next frame, that one must parse too (a lone 0xFFFx pair is common in arbitrary binary data).
 */
function frameStreamAt(b: Buffer, start: number, frameLength: (b: Buffer, i: number) => number): boolean {
  const len = frameLength(b, start);
  if (!len) return false;
  const next = start + len;
  if (next + 7 <= b.length) return frameLength(b, next) > 0;
  return true;
}

/** End of the ID3v2 tag starting at `at`, or 0 when none starts there. */
function id3EndAt(b: Buffer, at: number): number {
  // ID3v2 size is syncsafe (7 bits per byte), plus a 10-byte header and an optional 10-byte footer.
  if (b.length < at + 10 || ascii(b, at, 3) !== 'ID3') return 0;
  if ((b[at + 6] | b[at + 7] | b[at + 8] | b[at + 9]) & 0x80) return 0;
  const size = (b[at + 6] << 21) | (b[at + 7] << 14) | (b[at + 8] << 7) | b[at + 9];
  return at + 10 + size + (b[at + 5] & 0x10 ? 10 : 0);
}

/** Some taggers write a tag twice; ffmpeg skips consecutive tags, so the sniffer looks past them too. */
const MAX_CHAINED_TAGS = 4;

/** Where the leading ID3v2 tag(s) end (0 without a tag); may lie beyond the head. */
function tagsEnd(b: Buffer): number {
  let end = 0;
  for (let n = 0; n < MAX_CHAINED_TAGS; n++) {
    const next = id3EndAt(b, end);
    if (!next) break;
    end = next;
  }
  return end;
}

/**
 * Leading bytes sniffAudio needs to decide on a file whose first bytes are `head`: SNIFF_BYTES, or
 * for an ID3-tagged file the tag plus SNIFF_BYTES behind it (at most MAX_SNIFF_BYTES; a larger tag
 * is refused). A reader keeps reading while this exceeds what it has and the file goes on.
 */
export function sniffBytesWanted(head: Buffer): number {
  const end = tagsEnd(head);
  // A tag beyond the limit is refused whatever follows it: nothing more to read for that.
  if (end > MAX_ID3_BYTES) return SNIFF_BYTES;
  return Math.min(MAX_SNIFF_BYTES, Math.max(SNIFF_BYTES, end + SNIFF_BYTES));
}

// Brands of ISO-BMFF files that are images, not audio or video with an audio track.
const IMAGE_BRANDS = new Set(['heic', 'heix', 'hevc', 'heim', 'heis', 'mif1', 'msf1', 'avif', 'avis', 'crx ', 'jp2 ', 'jpx ']);

function isIsoBmff(b: Buffer): boolean {
  if (b.length < 12 || ascii(b, 4, 4) !== 'ftyp') return false;
  const boxSize = b.readUInt32BE(0);
  if (boxSize !== 1 && (boxSize < 16 || boxSize > 4096)) return false;
  const major = ascii(b, 8, 4);
  if (!/^[\x20-\x7e]{4}$/.test(major)) return false;
  return !IMAGE_BRANDS.has(major);
}

function isOggAudio(b: Buffer): boolean {
  if (b.length < 28 || ascii(b, 0, 4) !== 'OggS' || b[4] !== 0) return false;
  // The first page carries the codec identification packet; refuse known video-only streams.
  const first = b.toString('latin1', 28, Math.min(b.length, 64));
  return !first.startsWith('\x80theora') && !first.startsWith('\x01video');
}

function isWav(b: Buffer): boolean {
  if (b.length < 12) return false;
  const riff = ascii(b, 0, 4);
  return (riff === 'RIFF' || riff === 'RF64') && ascii(b, 8, 4) === 'WAVE';
}

/** The audio container/stream format of a file from its first bytes (ideally SNIFF_BYTES of them). */
export function sniffAudio(head: Buffer): AudioFormat | null {
  if (!head || head.length < 4) return null;
  if (isWav(head)) return 'wav';
  if (isOggAudio(head)) return 'ogg';
  if (isIsoBmff(head)) return 'm4a';
  // An ID3 tag says nothing about what follows it: ffmpeg's probe skips the tag and would take an
  // HLS playlist, an ffconcat script or an SDP file behind it at its word (and read the files or
  // hosts they name). So behind the tag, as without one, an MPEG audio or ADTS frame stream must
  // start. Encoders put ID3 in front of ADTS too.
  let start = tagsEnd(head);
  if (start > MAX_ID3_BYTES) return null;
  // Tolerate zero padding before the first frame, which some recorders and taggers write; nothing else.
  while (start < head.length && head[start] === 0) start++;
  if (start + 4 > head.length) return null;
  if (frameStreamAt(head, start, adtsFrameLength)) return 'aac';
  if (frameStreamAt(head, start, mpegFrameLength)) return 'mp3';
  return null;
}

const EXTENSIONS: Record<string, AudioFormat> = {
  wav: 'wav', wave: 'wav', mp3: 'mp3', m4a: 'm4a', mp4: 'm4a', aac: 'aac', ogg: 'ogg', oga: 'ogg', opus: 'ogg',
};
const MIME_TYPES: Record<string, AudioFormat> = {
  'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/wave': 'wav', 'audio/vnd.wave': 'wav',
  'audio/mpeg': 'mp3', 'audio/mp3': 'mp3', 'audio/mpeg3': 'mp3', 'audio/x-mpeg-3': 'mp3',
  'audio/mp4': 'm4a', 'audio/x-m4a': 'm4a', 'audio/m4a': 'm4a', 'video/mp4': 'm4a',
  'audio/aac': 'aac', 'audio/x-aac': 'aac', 'audio/aacp': 'aac',
  'audio/ogg': 'ogg', 'application/ogg': 'ogg', 'audio/opus': 'ogg',
};

/** What the client claims (extension first, then MIME type); informational only, never trusted. */
export function declaredAudioFormat(filename: string | null | undefined, mimetype: string | null | undefined): AudioFormat | null {
  const ext = /\.([A-Za-z0-9]+)$/.exec(filename ?? '')?.[1]?.toLowerCase();
  if (ext && EXTENSIONS[ext]) return EXTENSIONS[ext];
  const mime = (mimetype ?? '').split(';')[0].trim().toLowerCase();
  return MIME_TYPES[mime] ?? null;
}

export interface UploadHead {
  filename?: string | null;
  mimetype?: string | null;
  head: Buffer;
}

/**
 * The format to process an upload as, or null to refuse it (415). The content must sniff as one of
 * the allowed formats; a name or MIME type alone never suffices, and when they disagree with valid
 * content the content wins (phones routinely label AAC-in-MP4 as .aac or audio/mpeg).
 */
export function acceptAudioUpload(upload: UploadHead, allowed: readonly AudioFormat[] = AUDIO_FORMATS): AudioFormat | null {
  const sniffed = sniffAudio(upload.head);
  if (!sniffed || !allowed.includes(sniffed)) return null;
  return sniffed;
}
