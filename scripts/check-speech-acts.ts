// Validates the speech-act training data in training/speech-acts/*.jsonl (see its README.md) and
// prints counts per act, intent and file. Exit 1 on any error, so run it before committing data.
//
//   node --import tsx scripts/check-speech-acts.ts [DIR]
import fs from 'node:fs';
import path from 'node:path';

const ACTS = ['request', 'commitment', 'acceptance', 'refusal', 'proposal', 'joint', 'third_party', 'info', 'social', 'withdrawal'] as const;
// Acts that create an action item: only these carry an intent and an owner.
const ITEM_ACTS = new Set<string>(['request', 'commitment', 'acceptance', 'proposal', 'joint']);
const INTENTS = ['meeting', 'email', 'call', 'message', 'reminder', 'task'] as const;
const OWNERS = ['speaker', 'addressee', 'both'] as const;
const SPEAKERS = ['user', 'contact'] as const;
const FIELDS = ['prev', 'text', 'speaker', 'act', 'intent', 'owner'];
const MAX_FILE_BYTES = 400 * 1024;
// Files named asr*.jsonl imitate recogniser output: lower case words and spaces only.
const RECOGNISER_TEXT = /^[a-z]+( [a-z]+)*$/;

const dir = process.argv[2] ?? path.join('training', 'speech-acts');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort();
const errors: string[] = [];
const seenText = new Map<string, string>();
const actCounts = new Map<string, number>();
const intentCounts = new Map<string, number>();
const fileCounts: [string, number][] = [];
let total = 0;

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

if (files.length === 0) errors.push(`${dir}: no .jsonl files`);
for (const file of files) {
  const full = path.join(dir, file);
  const size = fs.statSync(full).size;
  if (size >= MAX_FILE_BYTES) errors.push(`${file}: ${size} bytes, the limit is ${MAX_FILE_BYTES}`);
  const recogniserStyle = file.startsWith('asr');
  const lines = fs.readFileSync(full, 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let count = 0;
  lines.forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    let row: Record<string, unknown>;
    try {
      row = JSON.parse(line) as Record<string, unknown>;
    } catch {
      errors.push(`${where}: not JSON`);
      return;
    }
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      errors.push(`${where}: not an object`);
      return;
    }
    const keys = Object.keys(row);
    for (const k of keys) if (!FIELDS.includes(k)) errors.push(`${where}: unknown field ${k}`);
    for (const k of FIELDS) if (!(k in row)) errors.push(`${where}: missing field ${k}`);
    const { prev, text, speaker, act, intent, owner } = row;
    if (typeof prev !== 'string') errors.push(`${where}: prev must be a string`);
    if (typeof text !== 'string' || text.trim() === '') {
      errors.push(`${where}: text must be a non-empty string`);
      return;
    }
    if (text !== text.trim() || (typeof prev === 'string' && prev !== prev.trim())) errors.push(`${where}: leading or trailing space`);
    if (!SPEAKERS.includes(speaker as (typeof SPEAKERS)[number])) errors.push(`${where}: speaker ${String(speaker)}`);
    if (!ACTS.includes(act as (typeof ACTS)[number])) {
      errors.push(`${where}: act ${String(act)}`);
      return;
    }
    const hasItem = ITEM_ACTS.has(act as string);
    if (hasItem) {
      if (!INTENTS.includes(intent as (typeof INTENTS)[number])) errors.push(`${where}: act ${act} needs an intent, got ${String(intent)}`);
      if (!OWNERS.includes(owner as (typeof OWNERS)[number])) errors.push(`${where}: act ${act} needs an owner, got ${String(owner)}`);
    } else {
      if (intent !== null) errors.push(`${where}: act ${act} has no item, intent must be null`);
      if (owner !== null) errors.push(`${where}: act ${act} has no item, owner must be null`);
    }
    if (act === 'acceptance' && (typeof prev !== 'string' || prev.trim() === '')) errors.push(`${where}: acceptance needs the request or proposal in prev`);
    // Numbers are spoken: digits would teach the model a form transcripts never contain.
    if (/[0-9]/.test(text) || (typeof prev === 'string' && /[0-9]/.test(prev))) errors.push(`${where}: digits; write numbers as spoken words`);
    if (recogniserStyle) {
      if (!RECOGNISER_TEXT.test(text)) errors.push(`${where}: recogniser-style text must be lower-case words without punctuation`);
      if (typeof prev === 'string' && prev !== '' && !RECOGNISER_TEXT.test(prev)) errors.push(`${where}: recogniser-style prev must be lower-case words without punctuation`);
    }
    const key = text.toLowerCase().replace(/[^a-z0-9' ]+/g, ' ').replace(/\s+/g, ' ').trim();
    const earlier = seenText.get(key);
    if (earlier) errors.push(`${where}: text duplicates ${earlier}`);
    else seenText.set(key, where);
    bump(actCounts, act as string);
    if (hasItem && typeof intent === 'string') bump(intentCounts, intent);
    count++;
  });
  fileCounts.push([file, count]);
  total += count;
}

const pct = (n: number): string => `${((100 * n) / Math.max(total, 1)).toFixed(1)} %`;
console.log(`lines: ${total}`);
console.log('per file:');
for (const [f, n] of fileCounts) console.log(`  ${f.padEnd(28)} ${String(n).padStart(5)}`);
console.log('per act:');
for (const a of ACTS) console.log(`  ${a.padEnd(12)} ${String(actCounts.get(a) ?? 0).padStart(5)}  ${pct(actCounts.get(a) ?? 0)}`);
const negatives = ['info', 'social', 'third_party', 'refusal'].reduce((s, a) => s + (actCounts.get(a) ?? 0), 0);
console.log(`  (info+social+third_party+refusal: ${negatives}, ${pct(negatives)})`);
console.log('per intent (lines with an item):');
for (const it of INTENTS) console.log(`  ${it.padEnd(12)} ${String(intentCounts.get(it) ?? 0).padStart(5)}`);
if (errors.length > 0) {
  for (const e of errors.slice(0, 200)) console.error(e);
  console.error(`${errors.length} error(s)`);
  process.exit(1);
}
console.log('ok');
