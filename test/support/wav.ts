// Hand-made WAV headers for tests that need a file to say something about itself: a length it
// does not have (hostile media), a rate that makes a few bytes last long, or a header sent ahead
// of samples streamed by hand.

/**
 * The 44-byte header of a mono PCM WAV file declaring `dataBytes` of samples at `sampleRate` Hz,
 * `bitsPerSample` bits each (the RIFF size saturates at 4 GiB).
 */
export function wavHeader(dataBytes: number, opts: { sampleRate?: number; bitsPerSample?: 8 | 16 } = {}): Buffer {
  const sampleRate = opts.sampleRate ?? 16000;
  const bytesPerSample = (opts.bitsPerSample ?? 16) / 8;
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(Math.min(0xffffffff, 36 + dataBytes), 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * bytesPerSample, 28);
  h.writeUInt16LE(bytesPerSample, 32);
  h.writeUInt16LE(bytesPerSample * 8, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** The header of a 16 kHz mono 16-bit PCM WAV file declaring `dataBytes` of samples. */
export function pcmWavHeader(dataBytes: number): Buffer {
  return wavHeader(dataBytes);
}
