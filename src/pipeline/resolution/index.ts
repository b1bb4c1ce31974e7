// Speaker naming (strategy version 2). The rules and their precedence are documented in resolve.ts.
export {
  resolveSpeakers,
  groupUtterances,
  type Utterance,
  type SpeakerUtterances,
  type ResolvedSpeaker,
  type SpeakerResolutionResult,
} from './resolve.js';
export { phoneFallbackLabel, matchToken, nameSpecOf, isCommonWord, isKnownFirstName, type NameSpec, type MatchGrade } from './names.js';
export { callFlowCue, callOpeningCue, heardNamesOf, claimsOfSpeaker, isAnsweringPhrase, type TextClaim, type ClaimKind } from './patterns.js';
