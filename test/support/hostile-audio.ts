// Building blocks of "audio" files an attacker crafts to make ffmpeg read something other than
// the upload: an ID3 tag to put in front (ffmpeg's probe skips it), and the playlists and scripts
// that name other files or hosts. Shared by the decoder's tests and the HTTP attack tests.
import { wavHeader } from './wav.js';

/** An ID3v2.4 tag with `padding` zero bytes of body (what a tagger leaves as padding). */
export function id3Tag(padding = 0): Buffer {
  const b = Buffer.alloc(10 + padding);
  b.write('ID3', 0, 'latin1');
  b[3] = 4;
  // The size is syncsafe: 7 bits per byte.
  b[6] = (padding >> 21) & 0x7f;
  b[7] = (padding >> 14) & 0x7f;
  b[8] = (padding >> 7) & 0x7f;
  b[9] = padding & 0x7f;
  return b;
}

/** An HLS media playlist whose segments are `segments` (paths relative to the playlist, or URLs). */
export function hlsPlaylist(segments: string[]): string {
  // #EXT-X-TARGETDURATION makes ffmpeg's HLS probe certain whatever the file's name.
  return `#EXTM3U\n#EXT-X-TARGETDURATION:60\n${segments.map((s) => `#EXTINF:60,\n${s}\n`).join('')}#EXT-X-ENDLIST\n`;
}

/** An ffconcat script joining `files` (relative to the script). */
export function ffconcatScript(files: string[]): string {
  return `ffconcat version 1.0\n${files.map((f) => `file ${f}\n`).join('')}`;
}

/** An SDP description of an RTP audio stream: ffmpeg would listen on the network for it. */
export function sdpDescription(): string {
  return 'v=0\no=- 0 0 IN IP4 127.0.0.1\ns=call\nc=IN IP4 127.0.0.1\nt=0 0\nm=audio 5004 RTP/AVP 0\na=rtpmap:0 PCMU/8000\n';
}

/** An 8-bit mono PCM WAV of `dataBytes` samples declaring `sampleRate` Hz: a few bytes, a long "duration". */
export function slowWav(sampleRate: number, dataBytes: number): Buffer {
  const data = Buffer.alloc(dataBytes);
  for (let i = 0; i < dataBytes; i++) data[i] = i % 2 ? 188 : 68;
  return Buffer.concat([wavHeader(dataBytes, { sampleRate, bitsPerSample: 8 }), data]);
}
