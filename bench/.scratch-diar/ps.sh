#!/bin/bash
# decode tiers to 16k mono wav and run pocketsphinx, caching outputs
C=/work/main/.cache/corpus
O=/work/main/bench/.scratch-diar/ps
run() {
  id=$1; tier=$2
  w=$O/$id.$tier.wav; out=$O/$id.$tier.txt
  [ -s $out ] && return
  case $tier in
    mono) cp $C/$id/mono16k.wav $w;;
    stereo) ffmpeg -loglevel error -y -i $C/$id/stereo.wav -ac 1 -ar 16000 -c:a pcm_s16le $w;;
    m4a) ffmpeg -loglevel error -y -i $C/$id/call.m4a -ac 1 -ar 16000 -c:a pcm_s16le $w;;
    phone) ffmpeg -loglevel error -y -i $C/$id/phone8k.wav -ac 1 -ar 16000 -c:a pcm_s16le $w;;
  esac
  pocketsphinx_continuous -infile $w -time yes 2>/dev/null > $out.tmp && mv $out.tmp $out
}
export -f run; export C O
for tier in mono stereo m4a phone; do for id in $(ls /work/shared/corpus/dialogues | sed 's/.json//'); do echo "$id $tier"; done; done | xargs -P 2 -n 2 bash -c 'run "$0" "$1"'
