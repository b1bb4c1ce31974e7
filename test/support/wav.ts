// Hand-made WAV headers for tests that need a file to say something about itself: a length it
// does not have (hostile media), or a header sent ahead of samples streamed by hand.

/** The 44-byte header of a 16 kHz mono 16-bit PCM WAV file declaring `dataBytes` of samples (the RIFF size saturates at 4 GiB). */
export function pcmWavHeader(dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(Math.min(0xffffffff, 36 + dataBytes), 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(16000, 24);
  h.writeUInt32LE(32000, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}
