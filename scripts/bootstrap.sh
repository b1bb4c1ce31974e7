#!/usr/bin/env bash
# Installs what the service needs on a fresh Debian/Ubuntu machine: system packages through apt
# when missing (ffmpeg, the pocketsphinx recogniser and its English model, espeak-ng for name
# pronunciations; flite and sox for the test corpus, real recorded voices for the real-voice set;
# with --bench also the extra voices bench/fit-voice.ts trains on and the tools that rebuild the
# telephone MLLR transform; with --container podman, buildah, podman-compose, debootstrap, runc, curl, jq and psql for
# container:check), then the npm dependencies when package.json or package-lock.json changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."

# Flags may be combined in any order (`--test --bench` once read only the first and skipped the
# bench voices, which left asterisk's es/fr folders as links to two held-out speakers).
has_flag() { local f; for f in "${FLAGS[@]}"; do [ "$f" = "$1" ] && return 0; done; return 1; }
FLAGS=("$@")

need=()
command -v ffmpeg >/dev/null 2>&1 || need+=(ffmpeg)
command -v pocketsphinx_batch >/dev/null 2>&1 || need+=(pocketsphinx)
[ -d /usr/share/pocketsphinx/model/en-us ] || need+=(pocketsphinx-en-us)
# Pronunciations of names cmudict lacks, for the recogniser's per-call dictionary.
command -v espeak-ng >/dev/null 2>&1 || need+=(espeak-ng)
# sphinx_lm_convert turns the phone-call language model into the binary form pocketsphinx loads fast.
command -v sphinx_lm_convert >/dev/null 2>&1 || need+=(sphinxbase-utils)
if has_flag --test || has_flag --bench; then
  command -v flite >/dev/null 2>&1 || need+=(flite)
  command -v sox >/dev/null 2>&1 || need+=(sox)
  # Real human voices for the real-voice test set (test/support/real-voices.ts) and the speaker
  # split of bench/support/real-speakers.ts (es: Allison reading Spanish).
  [ -f /usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz ] || need+=(asterisk-core-sounds-en)
  for lang in en es fr it ru; do
    dpkg -s "asterisk-core-sounds-$lang-g722" >/dev/null 2>&1 || need+=("asterisk-core-sounds-$lang-g722")
  done
  [ -d /usr/share/ktuberling/sounds/en ] || need+=(ktuberling-data)
  # A real browser for the console's tests (test/e2e/console.test.ts), driven by playwright-core.
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
fi
if has_flag --bench; then
  # More training speakers for bench/fit-voice.ts (refitting the voice model; no test needs them):
  # KLettres letter readers, three more asterisk voices and the Tux Paint stamp-name readers.
  [ -d /usr/share/klettres/fr ] || need+=(klettres-data)
  [ -d /usr/share/tuxpaint/stamps/food ] || need+=(tuxpaint-stamps-default)
  for p in asterisk-prompt-es-co asterisk-prompt-fr-armelle asterisk-prompt-it-menardi-wav; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
  done
  # Rebuilding the telephone MLLR transform (scripts/build-narrowband-adaptation.ts): sphinxtrain's
  # bw and mllr_solve, sphinx_fe, and festival's ked voice as one more adaptation reader.
  [ -x /usr/lib/sphinxtrain/bw ] || need+=(sphinxtrain)
  command -v sphinx_fe >/dev/null 2>&1 || need+=(sphinxbase-utils)
  [ -d /usr/share/festival/voices/english/ked_diphone ] || need+=(festival festvox-kdlpc16k)
fi
if has_flag --container; then
  # npm run container:check: build and run the image with podman; base images from Debian's mirror.
  for tool in podman buildah podman-compose debootstrap runc curl jq; do
    command -v "$tool" >/dev/null 2>&1 || need+=("$tool")
  done
  command -v psql >/dev/null 2>&1 || need+=(postgresql-client)
fi
if ((${#need[@]})); then
  echo "bootstrap: installing system packages: ${need[*]}" >&2
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q "${need[@]}" >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "${need[@]}" >/dev/null; } \
      || { echo "bootstrap: apt-get could not install ${need[*]}; install them and retry" >&2; exit 1; }
  elif command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    sudo apt-get update -q >/dev/null && sudo apt-get install -y -q "${need[@]}" >/dev/null \
      || { echo "bootstrap: could not install ${need[*]} (sudo apt-get failed); install them and retry" >&2; exit 1; }
  else
    echo "bootstrap: missing system packages: ${need[*]}. Install them with your package manager (Debian: apt-get install ${need[*]})." >&2
    exit 1
  fi
fi

# container:check needs only the system packages; the image installs its own npm dependencies.
has_flag --container && exit 0

stamp=node_modules/.install-stamp
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ package.json -nt "$stamp" ]; then
  echo "bootstrap: installing npm dependencies" >&2
  # `npm install`, not `npm ci`: the whisper.cpp binding lists prebuilt packages for other
  # platforms that the registry does not serve, which no lock file can record and `npm ci` rejects.
  npm install --no-audit --no-fund --loglevel=error
  touch "$stamp"
fi

# The recogniser's phone-call language model (src/pipeline/transcription/call-language-model.ts):
# built once per machine into dist/call-model/ (about a minute); the script returns at once when
# the model for the current phrase list and Debian model is already there.
node --max-old-space-size=8192 --import tsx scripts/build-call-model.ts
